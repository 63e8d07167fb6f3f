/**
 * What the deployment offers (transactions, pre-images, version) and the skew between this host's
 * clock and the server's.
 */
@NullMarked
package dev.materializer.core.server;

import org.jspecify.annotations.NullMarked;
