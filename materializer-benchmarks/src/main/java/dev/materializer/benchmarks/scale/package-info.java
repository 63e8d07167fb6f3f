/**
 * The scale report: counts and one-shot costs of the engine at thousands of views (routing cost
 * per event, a restart that runs nothing, registering a view live, idle heap per view, lane tasks
 * during a long pass, passes queued by a first catch-up, the index of the views collection), each
 * measured by a class of its own against an in-process mongo-java-server on loopback, and printed
 * as a Markdown table by {@link dev.materializer.benchmarks.scale.ScaleReport}. Not JMH, not a test:
 * nothing here asserts.
 */
@NullMarked
package dev.materializer.benchmarks.scale;

import org.jspecify.annotations.NullMarked;
