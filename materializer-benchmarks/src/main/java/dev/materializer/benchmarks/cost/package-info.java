/**
 * The cost report: what ONE source change costs the engine, end to end, in counts — rows written to
 * the target, stored rows read back, source documents the server examines for the pipeline,
 * commands sent, bytes the engine's threads allocate, and the pass's wall time — per scenario (a
 * per-document view at several sizes, a group-by over a large partition, a view over a view, a
 * delete without a pre-image), on an in-process mongo-java-server whose backend counts the
 * documents each collection examines. Printed as Markdown by
 * {@link dev.materializer.benchmarks.cost.CostReport}. Not JMH, not a test: nothing here asserts.
 * It drives the engine through its public API only, so it measures any engine behind it.
 *
 * <p>{@link dev.materializer.benchmarks.cost.HeapReport} is its sibling for the heap of a whole pass:
 * the engine in a child JVM of a small {@code -Xmx} ({@link dev.materializer.benchmarks.cost.HeapPass}),
 * the server in the report's, with the server answering aggregates whole (as mongo-java-server does)
 * and in batches (as MongoDB does).
 */
@NullMarked
package dev.materializer.benchmarks.cost;

import org.jspecify.annotations.NullMarked;
