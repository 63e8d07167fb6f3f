package dev.materializer.core;

import java.util.List;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.slf4j.LoggerFactory;

/**
 * What a class logs while a test looks: a Logback appender on the class's logger from {@link #of}
 * until {@link #close()}, for tests of what the engine says at WARN.
 */
public final class CapturedLog implements AutoCloseable {

    private final Logger logger;

    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    private CapturedLog(Class<?> source) {
        this.logger = (Logger) LoggerFactory.getLogger(source);
        appender.start();
        logger.addAppender(appender);
    }

    /**
     * Starts capturing what a class logs.
     * @param source the class whose logger is captured
     * @return the capture, to close when the test is done with it
     */
    public static CapturedLog of(Class<?> source) {
        return new CapturedLog(source);
    }

    /**
     * The events logged since the capture began.
     * @return the events, oldest first
     */
    public List<ILoggingEvent> events() {
        return List.copyOf(appender.list);
    }

    /**
     * The messages logged at a level since the capture began, formatted.
     * @param level the level
     * @return the messages, oldest first
     */
    public List<String> at(Level level) {
        return appender.list.stream().filter(event -> event.getLevel() == level)
            .map(ILoggingEvent::getFormattedMessage).toList();
    }

    @Override
    public void close() {
        logger.detachAppender(appender);
    }
}
