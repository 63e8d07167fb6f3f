package dev.materializer.sample;

/** A request the shop refuses; the message names the input and what is allowed. Answered with 400. */
public class InvalidInputException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     * @param message what is wrong and what is allowed
     */
    public InvalidInputException(String message) {
        super(message);
    }
}
