package dev.materializer.core.hash;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Set;

import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * A canonical hash of a row's content, equal for two rows exactly when their contents are equal as
 * MongoDB compares documents — field by field in order, at every depth (so {@code {x: 1, y: "s"}}
 * and {@code {y: "s", x: 1}} differ, as they do for an equality match, a {@code $group} key or a
 * unique index) — and, stricter than MongoDB, of the same BSON types and representations (an int
 * 1, a long 1 and a double 1.0 differ, as do 0.0 and -0.0; an ObjectId and its hex string differ): a
 * difference MongoDB would not make only ever costs a write, never hides a change. Arrays keep
 * their order. The same on every JVM and run.
 *
 * <p>The content is written in a canonical binary encoding (a format mark, then a type byte and the
 * value; lengths before strings and binaries, counts before documents and arrays; keys in their
 * order) straight into the digest. The digest is SHA-256 unless another is chosen: the tenant
 * controls the content of its rows, so the hash must resist crafted collisions, which MD5 and SHA-1
 * do not; the measured cost of SHA-256 over SHA-1 is small (see {@code materializer-benchmarks}).
 *
 * <p>Hashes stored before this format sorted the keys of every document; the format mark keeps
 * every new hash apart from them, so each such row is written once again at its next pass.
 *
 * <p>Thread-safe.
 */
public final class RowHasher {

    /** The digest used by default. */
    public static final String DEFAULT_ALGORITHM = "SHA-256";

    /** The digests a hasher may use: the JDK's, as every JVM has them. */
    public static final Set<String> ALGORITHMS = Set.of("SHA-256", "SHA-1", "MD5");

    private static final Base64.Encoder TEXT = Base64.getUrlEncoder().withoutPadding();

    private final String algorithm;

    /** Never updated: each hash works on its own copy. */
    private final MessageDigest prototype;

    private final boolean cloneable;

    /** A hasher with {@link #DEFAULT_ALGORITHM}. */
    public RowHasher() {
        this(DEFAULT_ALGORITHM);
    }

    /**
     * A hasher with the given digest; a change of digest changes every hash (and so rewrites
     * every row once).
     * @param algorithm one of {@link #ALGORITHMS}
     * @throws IllegalArgumentException when the algorithm is not one of them
     */
    public RowHasher(String algorithm) {
        if (!ALGORITHMS.contains(algorithm)) {
            throw new IllegalArgumentException("algorithm must be one of " + ALGORITHMS + ", got '" + algorithm + "'");
        }
        this.algorithm = algorithm;
        this.prototype = newDigest(algorithm);
        this.cloneable = isCloneable(prototype);
    }

    /**
     * The digest this hasher uses.
     * @return the name of the algorithm
     */
    public String algorithm() {
        return algorithm;
    }

    /**
     * The hash of a row's content. The caller leaves out {@code _id} and the engine's own fields.
     * @param content the content of the row
     * @return the hash, as text (the digest in URL-safe Base64 without padding)
     */
    public String hash(BsonDocument content) {
        ByteSink sink = ByteSink.into(digest());
        CanonicalBson.writeContent(content, sink);
        return TEXT.encodeToString(sink.digest());
    }

    /**
     * A type-aware key of an id, for sets of ids in memory: equal for equal values of the same type,
     * different for an ObjectId and its hex, or an int 1 and a long 1; documents compare with their
     * keys in order, as MongoDB compares {@code _id}s.
     *
     * <p>The key is the whole canonical encoding (URL-safe Base64), not a digest of it, so two
     * different ids never share a key.
     * @param id a value of {@code _id}
     * @return the key
     */
    public String idKey(BsonValue id) {
        ByteSink sink = ByteSink.keeping(64);
        CanonicalBson.write(id, sink);
        return TEXT.encodeToString(sink.bytes());
    }

    private MessageDigest digest() {
        if (cloneable) {
            try {
                return (MessageDigest) prototype.clone();
            } catch (CloneNotSupportedException e) {
                // isCloneable said otherwise; fall through to a new instance.
            }
        }
        return newDigest(algorithm);
    }

    private static boolean isCloneable(MessageDigest digest) {
        try {
            digest.clone();
            return true;
        } catch (CloneNotSupportedException e) {
            return false;
        }
    }

    private static MessageDigest newDigest(String algorithm) {
        try {
            return MessageDigest.getInstance(algorithm);
        } catch (NoSuchAlgorithmException e) {
            // Every Java platform must provide these (java.security.MessageDigest).
            throw new IllegalStateException("the JVM has no " + algorithm + " digest", e);
        }
    }

    @Override
    public String toString() {
        return "RowHasher[" + algorithm + "]";
    }
}
