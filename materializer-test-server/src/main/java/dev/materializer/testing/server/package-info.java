/**
 * The in-process MongoDB test server: mongo-java-server's in-memory backend, extended through its
 * backend, database, collection and oplog classes to answer as MongoDB does where the Materializer
 * reads it. Start one with {@link dev.materializer.testing.server.InProcessMongoServer}.
 * docs/compatibility.md lists what it does and does not do.
 *
 * <p>Its queries use indexes as MongoDB plans them, so that what they cost follows what they would
 * cost there: the {@code _id} index also for a query that names {@code _id} beside other fields
 * ({@code IdIndexedCollection}), and the non-unique indexes that {@code createIndexes} makes, which
 * the plain backend lists and ignores ({@code SecondaryIndex}, kept by
 * {@code SecondaryIndexedCollection}; a query is narrowed by {@code Narrowing}, an aggregate's input
 * and its {@code $lookup}s' reads by their leading {@code $match}, {@code AggregateInput}). An index
 * only narrows which documents a query examines; the whole query still decides on each, so every
 * answer is the scan's.
 */
@NullMarked
package dev.materializer.testing.server;

import org.jspecify.annotations.NullMarked;
