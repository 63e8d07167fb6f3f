package dev.materializer.core.server;

import org.jspecify.annotations.Nullable;

/**
 * What the deployment offers, detected at start by trying rather than by naming servers.
 *
 * @param transactions whether multi-document transactions work (replica sets and sharded clusters)
 * @param version the server's version, when it says
 */
public record ServerCapabilities(boolean transactions, @Nullable String version) {
}
