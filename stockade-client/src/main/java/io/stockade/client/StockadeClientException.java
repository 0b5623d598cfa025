package io.stockade.client;

/**
 * A call that got no problem to report: the service could not be reached, the exchange was cut, or
 * the answer was not what the contract describes (an error status without a problem body, a body
 * that is not the JSON expected). Whether a command was applied is then unknown: repeat it with the
 * same identifiers, which every command of the API is idempotent by.
 */
public class StockadeClientException extends RuntimeException {

  private final int status;

  public StockadeClientException(String message, int status, Throwable cause) {
    super(message, cause);
    this.status = status;
  }

  /** The HTTP status of the answer, or -1 when there was none. */
  public int status() {
    return status;
  }
}
