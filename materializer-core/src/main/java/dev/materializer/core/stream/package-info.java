/**
 * The change feed: one change stream per source collection, shared by every view and partition, with resume tokens.
 */
@NullMarked
package dev.materializer.core.stream;

import org.jspecify.annotations.NullMarked;
