// How selection ids read from a link's query: shared by the descriptors. Pure.

/** `text` as a whole number, or null when it is not one. */
export const wholeNumber = (text) => (/^\d+$/.test(text ?? '') ? Number(text) : null);
