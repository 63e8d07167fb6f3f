/**
 * The shop's views: the templates every tenant gets, their installation as view documents, and
 * reading their rows through the current-generation filter.
 */
@NullMarked
package dev.materializer.sample.views;

import org.jspecify.annotations.NullMarked;
