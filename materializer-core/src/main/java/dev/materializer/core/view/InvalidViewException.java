package dev.materializer.core.view;

/**
 * A view document that cannot run. The message names the field and what is allowed; it becomes the
 * view's {@code lastError}.
 */
public class InvalidViewException extends Exception {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     * @param message what is wrong, naming the field and what is allowed
     */
    public InvalidViewException(String message) {
        super(message);
    }
}
