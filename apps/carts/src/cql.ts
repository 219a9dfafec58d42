/** One CQL statement with its bound values, as `Client.batch` takes them. */
export interface CqlStatement {
  readonly query: string;
  readonly params: unknown[];
}
