package dev.materializer.core.write;

import java.time.Duration;

import dev.materializer.core.TargetIdStrategy;

/**
 * The settings the writers read: the part of the engine's options this package needs, so that it
 * depends on no type of the engine that composes it.
 *
 * @param viewsCollection the collection of the view documents
 * @param partitionField the field of a document that names its partition
 * @param statusField the field of a view document that holds its status
 * @param instanceId this instance's id, written on the leases it takes
 * @param targetId how a row's {@code _id} in a target is made
 * @param maxRows the most rows of one pass's result
 * @param maxTime the longest a pipeline may run
 * @param maxTransactionRows the most changed rows one transaction writes
 * @param passLease how long a pass's lease on its view holds
 * @param generationGrace how long a flipped generation stays readable
 */
public record WriteSettings(String viewsCollection, String partitionField, String statusField, String instanceId,
        TargetIdStrategy targetId, int maxRows, Duration maxTime, int maxTransactionRows, Duration passLease,
        Duration generationGrace) {
}
