/**
 * JMH benchmarks of the hot paths of the core: row hashing and change routing.
 */
@NullMarked
package dev.materializer.benchmarks;

import org.jspecify.annotations.NullMarked;
