/**
 * Several instances on one database: heartbeats say which instances are live, rendezvous hashing
 * gives each partition one owner among them, and an instance runs the passes of its own partitions
 * only. The per-view lease and the compare-and-set flip stay the fence while ownership moves.
 */
@NullMarked
package dev.materializer.core.cluster;

import org.jspecify.annotations.NullMarked;
