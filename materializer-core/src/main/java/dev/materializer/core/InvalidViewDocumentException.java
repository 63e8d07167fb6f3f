package dev.materializer.core;

/** A view document the engine would refuse; the message says what is wrong and what is allowed. */
public class InvalidViewDocumentException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the failure with what is wrong and the failure that showed it.
     * @param message what is wrong
     * @param cause the refusal of the engine's parser or scope guard
     */
    public InvalidViewDocumentException(String message, Throwable cause) {
        super(message, cause);
    }
}
