package dev.materializer.core.server;

import org.jspecify.annotations.Nullable;

/**
 * What the deployment offers, detected at start by trying rather than by naming servers.
 *
 * @param transactions whether multi-document transactions work (replica sets and sharded clusters)
 * @param version the server's version, when it says
 * @param splitLargeEvents whether change streams split events over 16 MB into fragments
 *     ({@code $changeStreamSplitLargeEvent}, MongoDB 7.0 and 6.0.9)
 */
public record ServerCapabilities(boolean transactions, @Nullable String version, boolean splitLargeEvents) {

    /**
     * What a deployment offers that does not split large events.
     * @param transactions whether multi-document transactions work
     * @param version the server's version, when it says
     */
    public ServerCapabilities(boolean transactions, @Nullable String version) {
        this(transactions, version, false);
    }
}
