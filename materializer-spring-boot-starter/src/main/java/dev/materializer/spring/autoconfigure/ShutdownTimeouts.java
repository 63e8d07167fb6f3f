package dev.materializer.spring.autoconfigure;

import java.time.Duration;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.autoconfigure.context.LifecycleProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * Checks at startup that {@code materializer.shutdown-timeout} fits in Spring's
 * {@code spring.lifecycle.timeout-per-shutdown-phase}: Spring waits at most that long for the
 * engine's stop, which is the wait for the running passes plus the close. A shutdown timeout that
 * is not below it makes Spring give up first, and the engine is then closed without its drain.
 */
final class ShutdownTimeouts {

    /** Spring's key of the longest wait for the beans of one lifecycle phase to stop. */
    static final String PHASE_TIMEOUT_KEY = "spring.lifecycle.timeout-per-shutdown-phase";

    /** The key of the engine's wait for its running passes. */
    static final String SHUTDOWN_TIMEOUT_KEY = MaterializerProperties.PREFIX + ".shutdown-timeout";

    // The lifecycle's category: the warning reads with the lines of the stop it is about.
    private static final Logger log = LoggerFactory.getLogger(MaterializerLifecycle.class);

    private ShutdownTimeouts() {
    }

    /**
     * Spring's phase timeout as the application sets it, else Boot's default.
     * @param environment the application's environment
     * @return the longest wait for one shutdown phase
     */
    static Duration phaseTimeout(Environment environment) {
        return Binder.get(environment)
            .bind(PHASE_TIMEOUT_KEY, Duration.class)
            .orElseGet(() -> new LifecycleProperties().getTimeoutPerShutdownPhase());
    }

    /**
     * Logs a warning naming both keys when the shutdown timeout is not below the phase timeout.
     * @param shutdownTimeout the engine's wait for its running passes
     * @param phaseTimeout Spring's wait for one shutdown phase
     * @return whether it warned
     */
    static boolean warnIfNotBelow(Duration shutdownTimeout, Duration phaseTimeout) {
        if (shutdownTimeout.compareTo(phaseTimeout) < 0) {
            return false;
        }
        log.warn("{} ({}) is not below {} ({}): Spring may stop waiting for the materializer before its running "
                + "passes end, and the engine is then closed without draining them; set {} below {}, with room "
                + "for the close (a few seconds)", SHUTDOWN_TIMEOUT_KEY,
                MaterializerOptionsMapping.readable(shutdownTimeout), PHASE_TIMEOUT_KEY,
                MaterializerOptionsMapping.readable(phaseTimeout), SHUTDOWN_TIMEOUT_KEY, PHASE_TIMEOUT_KEY);
        return true;
    }
}
