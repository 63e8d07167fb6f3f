package dev.materializer.benchmarks.cost;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.LongFunction;
import java.util.function.ToLongFunction;

import dev.materializer.benchmarks.scale.CommandCounter;
import dev.materializer.core.PassReport;

/**
 * The figures of one measured change, from its {@link ScenarioRun.Sample} and the scenario's
 * collections, and the median over the repeats.
 */
final class Figures {

    /** Commands that write: the documents they examine are found to be written, not read. */
    private static final Set<String> WRITES = Set.of("insert", "update", "delete", "findAndModify");

    private final Scenario scenario;

    private final ScenarioRun.Sample sample;

    Figures(Scenario scenario, ScenarioRun.Sample sample) {
        this.scenario = scenario;
        this.sample = sample;
    }

    private CollectionTraffic.Traffic targets() {
        CollectionTraffic.Traffic sum = CollectionTraffic.Traffic.NONE;
        for (String target : scenario.targets()) {
            sum = sum.plus(sample.traffic().of(target));
        }
        return sum;
    }

    /** Rows written to the views' targets: inserted + upserted + modified + deleted, from the replies. */
    long rowsWritten() {
        return targets().rowsWritten();
    }

    String rowsWrittenParts() {
        CollectionTraffic.Traffic sum = targets();
        return String.format("ins %s / ups %s / mod %s / del %s; %s statements", n(sum.inserted()), n(sum.upserted()),
                n(sum.modified()), n(sum.deleted()), n(sum.statements()));
    }

    /**
     * Stored rows read: documents returned by find cursors on the targets, and by aggregate cursors
     * on a target no view reads (an aggregate on a view's source is that view's pipeline).
     */
    long storedRowsRead() {
        long read = 0;
        for (String target : scenario.targets()) {
            CollectionTraffic.Traffic traffic = sample.traffic().of(target);
            read += traffic.returnedByFind() + (scenario.sources().contains(target) ? 0 : traffic.returnedByAggregate());
        }
        return read;
    }

    /** Source documents that passed the leading $match of the pipelines run on the sources. */
    long sourcePassedLeadingMatch() {
        return sumOverSources(kinds -> kinds.getOrDefault(CountingBackend.PASSED_LEADING_MATCH, 0L));
    }

    /** Source documents the server examined for aggregations (not change streams) on the sources. */
    long sourceScanned() {
        return sumOverSources(kinds -> kinds.getOrDefault("aggregate", 0L));
    }

    /**
     * Source documents read otherwise: what the server examined for finds (and counts, distincts), and
     * for the look-ups of updated documents by a change stream (one each, by {@code _id}).
     */
    long sourceOtherReads() {
        long other = 0;
        for (String source : scenario.sources()) {
            // A source that is also a target (another view's) is read by finds as stored rows: counted there.
            boolean target = scenario.targets().contains(source);
            for (Map.Entry<String, Long> kind : examinedOf(source).entrySet()) {
                String name = kind.getKey();
                if (!WRITES.contains(name) && !name.equals("aggregate") && !name.equals(CountingBackend.PASSED_LEADING_MATCH)
                        && !(target && name.equals("find"))) {
                    other += kind.getValue();
                }
            }
        }
        return other;
    }

    private Map<String, Long> examinedOf(String collection) {
        return sample.examined().byCollection().getOrDefault(ScenarioRun.DATABASE + "." + collection, Map.of());
    }

    private long sumOverSources(ToLongFunction<Map<String, Long>> kinds) {
        long sum = 0;
        for (String source : scenario.sources()) {
            sum += kinds.applyAsLong(examinedOf(source));
        }
        return sum;
    }

    long commands() {
        return CommandCounter.total(sample.commands());
    }

    String commandKinds() {
        return CommandCounter.describe(sample.commands());
    }

    /**
     * The commands the change sent per pass, by collection, leaving out the change streams (their
     * opens and polls go with the wall time, not with the change): "_aggregations 6.0, orders 1.0".
     * The round trips a pass costs, which on a real server are what a user waits for.
     */
    String commandsPerPassByCollection() {
        long passes = sample.passes().size();
        if (passes == 0) {
            return "no pass";
        }
        List<String> parts = new ArrayList<>();
        long total = 0;
        for (Map.Entry<String, CollectionTraffic.Traffic> entry : sample.traffic().byCollection().entrySet()) {
            long sent = commandsWithoutStreams(entry.getValue());
            if (sent != 0) {
                total += sent;
                parts.add(String.format("%s %.1f", entry.getKey(), sent / (double) passes));
            }
        }
        return String.format("%.1f per pass (%d pass%s): %s", total / (double) passes, passes, passes == 1 ? "" : "es",
                String.join(", ", parts));
    }

    /** The commands the change sent, change streams left out (their opens and polls go with the wall time). */
    long commandsWithoutStreams() {
        return commandsWithoutStreams(sample.traffic());
    }

    /** The commands of a stretch of traffic, change streams left out. */
    static long commandsWithoutStreams(CollectionTraffic.Snapshot traffic) {
        long total = 0;
        for (CollectionTraffic.Traffic collection : traffic.byCollection().values()) {
            total += commandsWithoutStreams(collection);
        }
        return total;
    }

    /** The passes the change caused. */
    long passCount() {
        return sample.passes().size();
    }

    private static long commandsWithoutStreams(CollectionTraffic.Traffic traffic) {
        long sent = 0;
        for (Map.Entry<String, Long> command : traffic.commands().entrySet()) {
            if (!command.getKey().endsWith(CollectionTraffic.CHANGE_STREAM_SUFFIX)) {
                sent += command.getValue();
            }
        }
        return sent;
    }

    /** getMores of change streams among the commands: the streams' polling, which goes with the wall time. */
    long changeStreamPolls() {
        long polls = 0;
        for (CollectionTraffic.Traffic traffic : sample.traffic().byCollection().values()) {
            polls += traffic.changeStreamPolls();
        }
        return polls;
    }

    /** Change events the engine's streams received on a collection (from the getMore replies). */
    long eventsOn(String collection) {
        return sample.traffic().of(collection).changeEvents();
    }

    /** Change events by collection, as received (replies) and as heard (the listener). */
    String events() {
        List<String> parts = new ArrayList<>();
        Map<String, Long> received = new TreeMap<>();
        sample.traffic().byCollection().forEach((collection, traffic) -> {
            if (traffic.changeEvents() != 0) {
                received.put(collection, traffic.changeEvents());
            }
        });
        Set<String> collections = new TreeSet<>(received.keySet());
        collections.addAll(sample.changesHeard().keySet());
        for (String collection : collections) {
            parts.add(collection + " " + n(received.getOrDefault(collection, 0L)) + " received / "
                    + n(sample.changesHeard().getOrDefault(collection, 0L)) + " heard");
        }
        return parts.isEmpty() ? "none" : String.join("; ", parts);
    }

    /** The passes of one view (by its id, which names its partition) in the window. */
    long passesOf(String id) {
        return sample.passes().stream().filter(report -> report.view().id().equals(id)).count();
    }

    /** The passes of the views of one partition. */
    long passesIn(String partition) {
        return sample.passes().stream().filter(report -> report.view().partition().equals(partition)).count();
    }

    /** "acme:orders CHANGED ×1 (engine: 1,000 written, 0 removed)". */
    String passes() {
        Map<String, long[]> byView = new TreeMap<>();
        Map<String, String> outcomes = new TreeMap<>();
        for (PassReport report : sample.passes()) {
            String key = report.view().id();
            long[] sums = byView.computeIfAbsent(key, k -> new long[3]);
            sums[0]++;
            sums[1] += report.rowsWritten();
            sums[2] += report.rowsRemoved();
            outcomes.merge(key, report.outcome().name(), (a, b) -> a.contains(b) ? a : a + "," + b);
        }
        List<String> parts = new ArrayList<>();
        byView.forEach((key, sums) -> parts.add(String.format("%s %s ×%d (engine: %s written, %s removed)", key,
                outcomes.get(key), sums[0], n(sums[1]), n(sums[2]))));
        return parts.isEmpty() ? "none" : String.join("; ", parts);
    }

    /** The commands the change sent by collection and name, change streams left out: "orders 100 (aggregate 100) · …". */
    String commandsByCollection() {
        return commandsByCollection(sample.traffic());
    }

    /** The commands of a stretch of traffic by collection and name, change streams left out. */
    static String commandsByCollection(CollectionTraffic.Snapshot traffic) {
        List<String> parts = new ArrayList<>();
        for (Map.Entry<String, CollectionTraffic.Traffic> entry : traffic.byCollection().entrySet()) {
            Map<String, Long> sent = new TreeMap<>();
            entry.getValue().commands().forEach((name, count) -> {
                if (!name.endsWith(CollectionTraffic.CHANGE_STREAM_SUFFIX)) {
                    sent.put(name, count);
                }
            });
            if (!sent.isEmpty()) {
                List<String> names = new ArrayList<>();
                sent.forEach((name, count) -> names.add(name + " " + n(count)));
                parts.add(String.format("`%s` %s (%s)", entry.getKey(), n(CommandCounter.total(sent)),
                        String.join(", ", names)));
            }
        }
        return parts.isEmpty() ? "none" : String.join(" · ", parts);
    }

    /** Views that must flip and show a new generation in the engine's snapshot. */
    long generationsMoved() {
        return sample.flips().generationsMoved();
    }

    /** Views with a pass that ended CHANGED. */
    long changedPasses() {
        return sample.flips().changedPasses();
    }

    /** From the first write of the change to the end of the last view's first CHANGED pass, ms; -1 if not every view had one. */
    long lastFlipMillis() {
        long nanos = sample.flips().lastFlipNanos();
        return nanos < 0 ? -1 : Math.round(nanos / 1e6);
    }

    /** Write → visible of the median view (its first CHANGED pass), ms; -1 if not every view had one. */
    long medianFlipMillis() {
        long nanos = sample.flips().medianFlipNanos();
        return nanos < 0 ? -1 : Math.round(nanos / 1e6);
    }

    /** Write → visible of the view at the 99th percentile, ms; -1 if not every view had one. */
    long p99FlipMillis() {
        long nanos = sample.flips().p99FlipNanos();
        return nanos < 0 ? -1 : Math.round(nanos / 1e6);
    }

    /** Commands without the change streams, per view to flip (per tenant of a burst), one decimal. */
    String commandsPerFlip() {
        return perFlip(sample.flips().views(), commandsWithoutStreams());
    }

    /** The median over the repeats of the commands without the change streams, per view to flip. */
    static String medianCommandsPerFlip(List<Figures> figures) {
        return figures.isEmpty() ? "not measured"
                : perFlip(figures.get(0).sample.flips().views(), medianValue(figures, Figures::commandsWithoutStreams));
    }

    private static String perFlip(int views, long commands) {
        return views == 0 ? "—" : String.format("%.1f", commands / (double) views);
    }

    long allocatedNet() {
        return sample.netBytes();
    }

    long allocatedRaw() {
        return sample.engineBytes();
    }

    double passMillis() {
        return sample.passNanos() / 1e6;
    }

    /** Per collection: what was written, read, examined and received, for the details. */
    String perCollection() {
        Set<String> collections = new TreeSet<>(sample.traffic().byCollection().keySet());
        sample.examined().byCollection().keySet().stream()
            .filter(name -> name.startsWith(ScenarioRun.DATABASE + "."))
            .forEach(name -> collections.add(name.substring(ScenarioRun.DATABASE.length() + 1)));
        List<String> parts = new ArrayList<>();
        for (String collection : collections) {
            CollectionTraffic.Traffic traffic = sample.traffic().of(collection);
            Map<String, Long> examined = sample.examined().byCollection()
                .getOrDefault(ScenarioRun.DATABASE + "." + collection, Map.of());
            List<String> facts = new ArrayList<>();
            if (traffic.rowsWritten() != 0 || traffic.statements() != 0) {
                facts.add(String.format("written %s (ins %s, ups %s, mod %s, del %s; %s statements)", n(traffic.rowsWritten()),
                        n(traffic.inserted()), n(traffic.upserted()), n(traffic.modified()), n(traffic.deleted()),
                        n(traffic.statements())));
            }
            if (traffic.returnedByFind() != 0 || traffic.returnedByAggregate() != 0) {
                facts.add(String.format("returned %s by find, %s by aggregate", n(traffic.returnedByFind()),
                        n(traffic.returnedByAggregate())));
            }
            if (traffic.changeEvents() != 0 || traffic.changeStreamPolls() != 0) {
                facts.add(String.format("%s change events in %s polls", n(traffic.changeEvents()),
                        n(traffic.changeStreamPolls())));
            }
            if (!examined.isEmpty()) {
                List<String> kinds = new ArrayList<>();
                examined.forEach((kind, count) -> kinds.add(kind + " " + n(count)));
                facts.add("examined: " + String.join(", ", kinds));
            }
            if (!traffic.commands().isEmpty()) {
                facts.add("commands: " + CommandCounter.describe(traffic.commands()));
            }
            if (!facts.isEmpty()) {
                parts.add("`" + collection + "`: " + String.join("; ", facts));
            }
        }
        return String.join(" · ", parts);
    }

    /** The median of a figure over the repeats, with the range when they differ: "1,000 (999–1,002 over 3)". */
    static String median(List<Figures> figures, ToLongFunction<Figures> figure) {
        return medianOf(figures, figure, Figures::n);
    }

    static String medianOf(List<Figures> figures, ToLongFunction<Figures> figure,
            LongFunction<String> format) {
        if (figures.isEmpty()) {
            return "not measured";
        }
        long[] values = figures.stream().mapToLong(figure).sorted().toArray();
        long middle = values[(values.length - 1) / 2];
        String text = format.apply(middle);
        if (values[0] != values[values.length - 1]) {
            text += " (" + format.apply(values[0]) + "–" + format.apply(values[values.length - 1]) + " over "
                    + values.length + ")";
        }
        return text;
    }

    static long medianValue(List<Figures> figures, ToLongFunction<Figures> figure) {
        long[] values = figures.stream().mapToLong(figure).sorted().toArray();
        return values.length == 0 ? -1 : values[(values.length - 1) / 2];
    }

    static String n(long value) {
        return String.format("%,d", value);
    }

    /** Bytes as MB (1024² bytes) with one decimal. */
    static String mb(long bytes) {
        return bytes < 0 ? "not measured" : String.format("%.1f MB", bytes / (1024.0 * 1024.0));
    }
}
