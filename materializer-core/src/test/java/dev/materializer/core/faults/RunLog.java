package dev.materializer.core.faults;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.PatternLayout;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import org.slf4j.LoggerFactory;

/**
 * The log of one fault run, held in memory: the engine's loggers ({@code dev.materializer}) at
 * DEBUG and every other logger at its own level, from every thread, while the run lasts. The
 * console keeps INFO (its appender filters, see {@code logback-test.xml}); the DEBUG lines only
 * reach the run's log file, written when the run fails.
 *
 * <p>Runs follow one another (the suite does not run in parallel), so whatever is logged while a
 * run is open belongs to it. Bounded: past {@value #MAX_LINES} lines the oldest go.
 */
final class RunLog implements AutoCloseable {

    static final int MAX_LINES = 200_000;

    private static final String ENGINE = "dev.materializer";

    private final Logger root;

    private final Logger engine;

    private final Level engineLevel;

    private final Appender appender;

    RunLog() {
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        this.root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        this.engine = context.getLogger(ENGINE);
        this.engineLevel = engine.getLevel();
        PatternLayout layout = new PatternLayout();
        layout.setContext(context);
        layout.setPattern("%d{HH:mm:ss.SSS} %-5level [%thread] %logger{24} - %msg%n%ex");
        layout.start();
        this.appender = new Appender(layout);
        appender.setContext(context);
        appender.setName("fault-run");
        appender.start();
        root.addAppender(appender);
        engine.setLevel(Level.DEBUG);
    }

    List<String> lines() {
        return appender.lines();
    }

    @Override
    public void close() {
        engine.setLevel(engineLevel);
        root.detachAppender(appender);
        appender.stop();
    }

    private static final class Appender extends AppenderBase<ILoggingEvent> {

        private final PatternLayout layout;

        private final Deque<String> lines = new ArrayDeque<>();

        private long dropped;

        Appender(PatternLayout layout) {
            this.layout = layout;
        }

        @Override
        protected void append(ILoggingEvent event) {
            String line = layout.doLayout(event);
            synchronized (lines) {
                lines.addLast(line.endsWith("\n") ? line.substring(0, line.length() - 1) : line);
                if (lines.size() > MAX_LINES) {
                    lines.removeFirst();
                    dropped++;
                }
            }
        }

        List<String> lines() {
            synchronized (lines) {
                List<String> copy = new ArrayList<>();
                if (dropped > 0) {
                    copy.add("(" + dropped + " older line(s) dropped)");
                }
                copy.addAll(lines);
                return copy;
            }
        }
    }
}
