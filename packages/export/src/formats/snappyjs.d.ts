/** snappyjs ships no types: the one function the Parquet writer calls (parquet-encoder.ts). */
declare module 'snappyjs' {
  const snappy: { compress(input: Uint8Array): Uint8Array };
  export default snappy;
}
