/**
 * The dependency order of the views of a partition, and the views caught in cycles.
 */
@NullMarked
package dev.materializer.core.graph;

import org.jspecify.annotations.NullMarked;
