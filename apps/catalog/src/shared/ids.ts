/** ObjectId hex at the edges; MongoDB ObjectId inside the write model. */
export const OBJECT_ID_HEX = /^[0-9a-f]{24}$/;

export function isObjectIdHex(s: string): boolean {
  return OBJECT_ID_HEX.test(s);
}
