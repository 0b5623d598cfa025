package io.stockade.command.reservation;

/** The gate admitted a reservation but its event could not be stored. */
class RecordingFailedException extends RuntimeException {

  RecordingFailedException(String reservationId, Throwable cause) {
    super("Reservation " + reservationId + " could not be recorded", cause);
  }
}
