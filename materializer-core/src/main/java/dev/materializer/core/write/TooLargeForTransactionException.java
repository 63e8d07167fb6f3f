package dev.materializer.core.write;

/** A view with more rows to write or remove than one transaction may hold: it goes in groups instead. */
final class TooLargeForTransactionException extends Exception {

    private static final long serialVersionUID = 1L;

    TooLargeForTransactionException(String message) {
        super(message);
    }
}
