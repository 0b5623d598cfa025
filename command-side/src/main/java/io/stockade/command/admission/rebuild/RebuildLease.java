package io.stockade.command.admission.rebuild;

/**
 * The claim on a rebuild in the database, which the rebuild renews while it works (every script
 * call and every thousand events of the fold): a rebuild that takes longer than the lease is not
 * taken over while it makes progress. The keeper holds the claim; the rebuild only renews it.
 */
interface RebuildLease {

  /**
   * Tells the database the rebuild is alive (at most as often as it needs to hear it).
   *
   * @throws TakenOverException when another instance took the rebuild over
   */
  void renew();

  /** Thrown when another instance's rebuild took over: this one stops, having written nothing. */
  final class TakenOverException extends RuntimeException {

    TakenOverException(long epoch) {
      super("The rebuild of gate epoch " + epoch + " was taken over by a later one");
    }
  }
}
