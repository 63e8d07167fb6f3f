/**
 * View definitions as read from the views collection, their status, and the readers' current-generation filter.
 */
@NullMarked
package dev.materializer.core.view;

import org.jspecify.annotations.NullMarked;
