package dev.materializer.core;

/**
 * The cause of a future that ends because the engine closed before its work ran: work queued in a
 * partition's lane at the close, or asked for during or after it. The work did not start, so it
 * changed nothing; on a running engine the same request may simply be made again.
 *
 * <p>An {@link IllegalStateException}, as the refusal of a request to an engine that is not running
 * is, so a caller that handles one handles both. Not a {@link java.util.concurrent.CancellationException}:
 * a future completed with one throws it from {@code get()} in place of the usual
 * {@link java.util.concurrent.ExecutionException}, which callers that wait on a future with a timeout
 * (the actuator endpoint does) do not expect, and it would read as the caller's own {@code cancel()}.
 */
public final class EngineClosedException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    /**
     * An exception with the given message.
     * @param message what did not run, and that the engine closed
     */
    public EngineClosedException(String message) {
        super(message);
    }
}
