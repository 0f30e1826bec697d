// Placeholder: the CLI's commander wiring lands with its issue.
console.log('rcs');
