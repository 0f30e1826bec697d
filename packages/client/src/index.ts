export * from './exports-table.js';
