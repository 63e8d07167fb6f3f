package dev.materializer.benchmarks.scale;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;

/** Counts the commands a client sends, by name; the engine's client carries one. */
public final class CommandCounter implements CommandListener {

    private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();

    @Override
    public void commandStarted(CommandStartedEvent event) {
        counts.computeIfAbsent(event.getCommandName(), name -> new LongAdder()).increment();
    }

    /** The counts so far, by command name. */
    public Map<String, Long> snapshot() {
        Map<String, Long> copy = new TreeMap<>();
        counts.forEach((name, count) -> copy.put(name, count.sum()));
        return copy;
    }

    /** What was sent between two snapshots, by command name, without the names sent zero times. */
    public static Map<String, Long> between(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Long> sent = new TreeMap<>();
        after.forEach((name, count) -> {
            long delta = count - before.getOrDefault(name, 0L);
            if (delta > 0) {
                sent.put(name, delta);
            }
        });
        return sent;
    }

    public static long total(Map<String, Long> counts) {
        return counts.values().stream().mapToLong(Long::longValue).sum();
    }

    /** "find 3, update 2", or "none". */
    public static String describe(Map<String, Long> counts) {
        if (counts.isEmpty()) {
            return "none";
        }
        StringBuilder text = new StringBuilder();
        counts.forEach((name, count) -> {
            if (text.length() > 0) {
                text.append(", ");
            }
            text.append(name).append(' ').append(count);
        });
        return text.toString();
    }
}
