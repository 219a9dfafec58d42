/** The append-only ledger collection's name (its own file: the stock repository writes it in transactions, the ledger repository owns it). */
export const LEDGER = 'ledger';
