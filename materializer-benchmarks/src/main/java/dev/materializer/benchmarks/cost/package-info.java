/**
 * The cost report: what ONE source change costs the engine, end to end, in counts — rows written to
 * the target, stored rows read back, source documents the server examines for the pipeline,
 * commands sent, bytes the engine's threads allocate, and the pass's wall time — per scenario (a
 * per-document view at several sizes, a group-by over a large partition, a view over a view, a
 * delete without a pre-image, and a burst of one insert in each of many tenants sharing one
 * definition), and what a rolling restart of three instances over many tenants runs
 * ({@link dev.materializer.benchmarks.cost.RollingRestartRun}), on the in-process test server ({@code InProcessBackend}) whose
 * backend counts the documents each collection examines. Printed as Markdown by
 * {@link dev.materializer.benchmarks.cost.CostReport}. Not JMH, not a test: nothing here asserts.
 * It drives the engine through its public API only, so it measures any engine behind it.
 *
 * <p>{@link dev.materializer.benchmarks.cost.HeapReport} is its sibling for the heap of a whole pass:
 * the engine in a child JVM of a small {@code -Xmx} ({@link dev.materializer.benchmarks.cost.HeapPass}),
 * the server in the report's, with the server answering aggregates whole (as mongo-java-server does)
 * and in batches (as MongoDB does). {@link dev.materializer.benchmarks.cost.FirstRun} times the first
 * run of a per-document view on plain mongo-java-server and on the test server.
 */
@NullMarked
package dev.materializer.benchmarks.cost;

import org.jspecify.annotations.NullMarked;
