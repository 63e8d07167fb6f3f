package dev.materializer.core.cluster;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collection;

import org.jspecify.annotations.Nullable;

/**
 * Highest-random-weight (rendezvous) hashing: the owner of a partition is the live instance with
 * the highest weight for it, the weight being the first 8 bytes of SHA-256 over
 * {@code instance + "\u0000" + partition} (UTF-8) read as an unsigned number. Every instance computes
 * the same owner from the same live set, and an instance that leaves moves only its own partitions.
 *
 * <p>Pure and thread-safe.
 */
public final class Rendezvous {

    private Rendezvous() {
    }

    /**
     * The owner of a partition.
     * @param partition the partition
     * @param liveInstances the live instances, not empty
     * @return the instance with the highest weight for the partition; on equal weights the smallest id
     * @throws IllegalArgumentException when there is no live instance
     */
    public static String owner(String partition, Collection<String> liveInstances) {
        @Nullable String best = null;
        long bestWeight = 0;
        for (String instance : liveInstances) {
            long weight = weight(instance, partition);
            int order = best == null ? 1 : Long.compareUnsigned(weight, bestWeight);
            if (order > 0 || (order == 0 && instance.compareTo(best) < 0)) {
                best = instance;
                bestWeight = weight;
            }
        }
        if (best == null) {
            throw new IllegalArgumentException("liveInstances must name at least one instance, was empty");
        }
        return best;
    }

    /** The weight of an instance for a partition: compare it unsigned. */
    static long weight(String instance, String partition) {
        byte[] digest = sha256().digest((instance + "\u0000" + partition).getBytes(StandardCharsets.UTF_8));
        return ByteBuffer.wrap(digest, 0, Long.BYTES).getLong();
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        }
        catch (NoSuchAlgorithmException ex) {
            // Every Java platform must provide SHA-256.
            throw new IllegalStateException("SHA-256 is not available", ex);
        }
    }
}
