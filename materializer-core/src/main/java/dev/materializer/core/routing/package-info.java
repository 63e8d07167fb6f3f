/**
 * Change routing: the partitions a change of a source can affect, and whether an update touches the fields a view reads.
 */
@NullMarked
package dev.materializer.core.routing;

import org.jspecify.annotations.NullMarked;
