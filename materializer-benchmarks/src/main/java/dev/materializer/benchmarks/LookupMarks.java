package dev.materializer.benchmarks;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.materializer.core.incremental.AffectedKeys;
import dev.materializer.core.incremental.PassPlanner;
import dev.materializer.core.incremental.ShapeAnalysis;
import dev.materializer.core.incremental.ViewShape;
import dev.materializer.core.pass.DirtySources;
import dev.materializer.core.routing.SourceChange;
import org.bson.BsonDocument;
import org.bson.BsonString;

/**
 * What N changes of a {@code $lookup}'s joined collection cost to mark and to plan: each change of
 * {@code products} (a new sku each) is merged into one partition's marks as the scheduler merges it
 * (a one-change {@link DirtySources} added to the partition's), on this thread; then the view's
 * pass is planned with a key finder that counts its calls and the documents it hands out (one
 * primary document, of a key of its own, per value a query looks for). Prints a Markdown table
 * after a warm-up; the wall time is a figure of this machine, the counts are exact.
 *
 * <p>Run: {@code java -cp materializer-benchmarks/target/benchmarks.jar dev.materializer.benchmarks.LookupMarks}
 * (optionally the counts of changes as arguments, 5000 and 20000 by default).
 */
public final class LookupMarks {

    private static final ViewShape JOINED = ShapeAnalysis.analyze(List.of(
            BsonDocument.parse("{$lookup: {from: 'products', localField: 'product', foreignField: 'sku', as: 'p'}}"),
            BsonDocument.parse("{$group: {_id: '$customer', cats: {$addToSet: '$p.category'}}}")), "orders");

    private LookupMarks() {
    }

    /**
     * Prints the table.
     * @param args the counts of changes
     */
    public static void main(String[] args) {
        List<Integer> counts = new ArrayList<>();
        for (String arg : args) {
            counts.add(Integer.parseInt(arg));
        }
        if (counts.isEmpty()) {
            counts = List.of(5_000, 20_000);
        }
        System.out.println("| changes | mark time | allocated while marking | elements merged | values kept | plan | queries sent | documents read |");
        System.out.println("| ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |");
        // A warm-up, so the JIT has compiled the path before the figures
        run(2_000, false);
        for (int count : counts) {
            run(count, true);
        }
    }

    private static void run(int changes, boolean print) {
        List<AffectedKeys> marks = new ArrayList<>(changes);
        for (int i = 0; i < changes; i++) {
            BsonDocument product = new BsonDocument("_id", new BsonString("id" + i)).append("sku", new BsonString("p" + i));
            SourceChange insert = new SourceChange(SourceChange.Operation.INSERT, product, null, product.get("_id"), null,
                    null, null);
            marks.add(AffectedKeys.of(JOINED, "products", insert));
        }
        long allocatedBefore = allocated();
        long started = System.nanoTime();
        DirtySources partition = new DirtySources();
        for (AffectedKeys keys : marks) {
            DirtySources one = new DirtySources();
            one.add("products", Map.of("view", keys));
            partition.addAll(one);
        }
        long markNanos = System.nanoTime() - started;
        long allocatedBytes = allocated() - allocatedBefore;
        AffectedKeys kept = partition.keysOf("view", List.of("orders", "products"));
        int[] queries = {0};
        int[] documents = {0};
        // Each value a query looks for finds one order of a customer of its own
        PassPlanner.Plan plan = PassPlanner.plan(JOINED, kept, (filter, projection, taker) -> {
            queries[0]++;
            int values = filter.getDocument("product").getArray("$in").size();
            for (int i = 0; i < values; i++) {
                documents[0]++;
                if (!taker.test(new BsonDocument("customer", new BsonString("c" + queries[0] + "-" + i)))) {
                    return;
                }
            }
        });
        if (!print) {
            return;
        }
        int values = kept.keyQueries().stream().mapToInt(query -> query.getDocument("product").getArray("$in").size())
            .sum();
        System.out.printf("| %,d | %,.1f ms | %,d MB | %,d | %,d | %s | %,d | %,d |%n", changes, markNanos / 1e6,
                allocatedBytes / (1024 * 1024), partition.elementsCopied(), values,
                plan.scope() == null ? "whole: " + plan.wholeBecause() : "keys", queries[0], documents[0]);
    }

    /** The bytes this thread allocated so far, or 0 where the JVM does not say. */
    private static long allocated() {
        if (ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean bean) {
            return bean.getThreadAllocatedBytes(Thread.currentThread().getId());
        }
        return 0;
    }
}
