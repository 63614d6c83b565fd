// An answer of the API that is not 2xx, as the console keeps it: the status and the API's own error body.
// Apart from the client so that code reading errors (field-errors.ts) needs no browser to be tested.

export interface ErrorBody {
  code: number;
  key: string;
  message: string;
  details?: string;
  request_id?: string;
  retry_after?: number;
}

export class ApiError extends Error {
  readonly status: number;
  readonly body: ErrorBody;
  constructor(status: number, body: ErrorBody) {
    super(body.details ?? body.message);
    this.status = status;
    this.body = body;
  }
  get key(): string {
    return this.body.key;
  }
}
