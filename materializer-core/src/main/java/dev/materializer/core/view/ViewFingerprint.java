package dev.materializer.core.view;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;

/**
 * The fingerprint of what defines a view's result: a hex SHA-256 over the BSON encoding of its
 * sources, pipeline, target and source fields. BSON is typed and length-prefixed, so the encoding
 * is unambiguous; stage keys keep their order (it matters in {@code $sort}); source fields are
 * sorted by source, since their order means nothing. The id, partition, status and metadata are
 * left out, so writing a status does not change it. An incremental declaration other than none is in
 * it too: it does not change the result, but views with one fingerprint share one definition, so two
 * views that declare differently must not share; a view without one keeps the fingerprint it always had.
 *
 * <p>Stateless and thread-safe.
 */
final class ViewFingerprint {

    private static final BsonDocumentCodec CODEC = new BsonDocumentCodec();

    private ViewFingerprint() {
    }

    static String of(List<String> collections, List<BsonDocument> pipeline, String targetCollection,
            Map<String, List<String>> sourceFields) {
        return of(collections, pipeline, targetCollection, sourceFields, IncrementalDeclaration.AUTO);
    }

    static String of(List<String> collections, List<BsonDocument> pipeline, String targetCollection,
            Map<String, List<String>> sourceFields, IncrementalDeclaration incremental) {
        BsonArray sources = new BsonArray();
        collections.forEach(name -> sources.add(new BsonString(name)));
        BsonArray stages = new BsonArray();
        pipeline.forEach(stages::add);
        BsonDocument fields = new BsonDocument();
        new TreeMap<>(sourceFields).forEach((source, paths) -> {
            BsonArray array = new BsonArray();
            paths.forEach(path -> array.add(new BsonString(path)));
            fields.append(source, array);
        });
        BsonDocument canonical = new BsonDocument("collections", sources).append("pipeline", stages)
            .append("targetCollection", new BsonString(targetCollection))
            .append("sourceFields", fields);
        if (incremental.mode() != IncrementalDeclaration.Mode.AUTO) {
            BsonArray key = new BsonArray();
            incremental.key().forEach(path -> key.add(new BsonString(path)));
            canonical.append("incremental", new BsonDocument("mode", new BsonString(incremental.mode().name()))
                .append("key", key));
        }
        ByteBuffer bytes = new RawBsonDocument(canonical, CODEC).getByteBuffer().asNIO();
        return HexFormat.of().formatHex(sha256().digest(toArray(bytes)));
    }

    private static byte[] toArray(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return bytes;
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        }
        catch (NoSuchAlgorithmException ex) {
            // Every Java platform must provide SHA-256
            throw new IllegalStateException("SHA-256 is not available", ex);
        }
    }
}
