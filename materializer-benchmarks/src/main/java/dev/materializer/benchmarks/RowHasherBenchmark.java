package dev.materializer.benchmarks;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.concurrent.TimeUnit;

import org.bson.BsonDocument;
import org.bson.ByteBuf;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import dev.materializer.core.hash.RowHasher;

/**
 * Rows hashed per second, for a small and a large row, with each digest the hasher may use.
 * {@code digestOfBsonBytes} digests the row's BSON bytes alone: the part of the cost that is the
 * digest, the rest being the canonical encoding.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class RowHasherBenchmark {

    /** The digest. */
    @Param({"SHA-256", "SHA-1", "MD5"})
    public String algorithm = "SHA-256";

    /** The row: {@code small} (5 fields) or {@code large} (200 fields, nested). */
    @Param({"small", "large"})
    public String row = "small";

    private RowHasher hasher = new RowHasher();

    private BsonDocument content = new BsonDocument();

    private byte[] bsonBytes = new byte[0];

    private MessageDigest digest = newDigest("SHA-256");

    /** Builds the hasher and the row. */
    @Setup
    public void setUp() {
        hasher = new RowHasher(algorithm);
        content = "large".equals(row) ? Rows.large() : Rows.small();
        ByteBuf raw = new RawBsonDocument(content, new BsonDocumentCodec()).getByteBuffer();
        bsonBytes = new byte[raw.remaining()];
        raw.get(bsonBytes);
        digest = newDigest(algorithm);
    }

    private static MessageDigest newDigest(String algorithm) {
        try {
            return MessageDigest.getInstance(algorithm);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** One row hashed: the canonical encoding fed into the digest. */
    @Benchmark
    public String hash() {
        return hasher.hash(content);
    }

    /** The digest alone over as many bytes as the row's BSON. */
    @Benchmark
    public byte[] digestOfBsonBytes() {
        return digest.digest(bsonBytes);
    }
}
