package dev.materializer.sample;

/** Something a request names does not exist; the message says what. Answered with 404. */
public class NotFoundException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     * @param message what was not found
     */
    public NotFoundException(String message) {
        super(message);
    }
}
