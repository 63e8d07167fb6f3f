/**
 * The engine facade, its options, the listener of its events and the snapshot of its state.
 */
@NullMarked
package dev.materializer.core;

import org.jspecify.annotations.NullMarked;
