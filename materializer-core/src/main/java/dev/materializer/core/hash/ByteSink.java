package dev.materializer.core.hash;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.Arrays;

import org.bson.types.ObjectId;
import org.jspecify.annotations.Nullable;

/**
 * A small buffer the canonical encoding is written to: it either feeds a digest in chunks (so a
 * large row never lives as one byte array) or grows to keep every byte (for id keys).
 *
 * <p>Not thread-safe: one per encoding.
 */
final class ByteSink {

    private static final int CHUNK = 512;

    private final @Nullable MessageDigest digest;

    private byte[] buffer;

    private int size;

    private ByteSink(@Nullable MessageDigest digest, int capacity) {
        this.digest = digest;
        this.buffer = new byte[capacity];
    }

    /** A sink that feeds the digest. */
    static ByteSink into(MessageDigest digest) {
        return new ByteSink(digest, CHUNK);
    }

    /** A sink that keeps the bytes. */
    static ByteSink keeping(int expectedSize) {
        return new ByteSink(null, Math.max(16, expectedSize));
    }

    /** Makes room for {@code count} more bytes ({@code count <= CHUNK}). */
    private void ensure(int count) {
        if (size + count <= buffer.length) {
            return;
        }
        if (digest != null) {
            digest.update(buffer, 0, size);
            size = 0;
        } else {
            buffer = Arrays.copyOf(buffer, Math.max(buffer.length * 2, size + count));
        }
    }

    void writeByte(int value) {
        ensure(1);
        buffer[size++] = (byte) value;
    }

    void writeInt(int value) {
        ensure(4);
        buffer[size++] = (byte) (value >>> 24);
        buffer[size++] = (byte) (value >>> 16);
        buffer[size++] = (byte) (value >>> 8);
        buffer[size++] = (byte) value;
    }

    void writeLong(long value) {
        ensure(8);
        for (int shift = 56; shift >= 0; shift -= 8) {
            buffer[size++] = (byte) (value >>> shift);
        }
    }

    /** An unsigned LEB128 number: short for the small lengths and counts that are the rule. */
    void writeLength(int value) {
        ensure(5);
        int rest = value;
        while ((rest & ~0x7F) != 0) {
            buffer[size++] = (byte) ((rest & 0x7F) | 0x80);
            rest >>>= 7;
        }
        buffer[size++] = (byte) rest;
    }

    /** The twelve bytes of the id, written in place. */
    void writeObjectId(ObjectId id) {
        ensure(12);
        id.putToByteBuffer(ByteBuffer.wrap(buffer, size, 12));
        size += 12;
    }

    void writeBytes(byte[] bytes) {
        int offset = 0;
        while (offset < bytes.length) {
            int count = Math.min(CHUNK, bytes.length - offset);
            ensure(count);
            System.arraycopy(bytes, offset, buffer, size, count);
            size += count;
            offset += count;
        }
    }

    /**
     * Writes the string as UTF-8, preceded by its length in bytes. A lone surrogate is written as
     * its own three bytes (as WTF-8 does) rather than replaced, so distinct strings never give the
     * same bytes.
     */
    void writeString(String text) {
        int length = text.length();
        int encodedLength = length;
        for (int i = 0; i < length; i++) {
            char c = text.charAt(i);
            if (c >= 0x80) {
                // Two bytes below U+0800, three above; a surrogate pair (two chars) gives four.
                encodedLength += c < 0x800 ? 1 : 2;
                if (Character.isHighSurrogate(c) && i + 1 < length && Character.isLowSurrogate(text.charAt(i + 1))) {
                    i++;
                }
            }
        }
        writeLength(encodedLength);
        if (encodedLength == length && length <= CHUNK) {
            // ASCII only, the common case: one check of room, then one byte per char.
            ensure(length);
            for (int i = 0; i < length; i++) {
                buffer[size + i] = (byte) text.charAt(i);
            }
            size += length;
            return;
        }
        for (int i = 0; i < length; i++) {
            char c = text.charAt(i);
            if (c < 0x80) {
                ensure(1);
                buffer[size++] = (byte) c;
            } else if (c < 0x800) {
                ensure(2);
                buffer[size++] = (byte) (0xC0 | (c >> 6));
                buffer[size++] = (byte) (0x80 | (c & 0x3F));
            } else if (Character.isHighSurrogate(c) && i + 1 < length && Character.isLowSurrogate(text.charAt(i + 1))) {
                int codePoint = Character.toCodePoint(c, text.charAt(++i));
                ensure(4);
                buffer[size++] = (byte) (0xF0 | (codePoint >> 18));
                buffer[size++] = (byte) (0x80 | ((codePoint >> 12) & 0x3F));
                buffer[size++] = (byte) (0x80 | ((codePoint >> 6) & 0x3F));
                buffer[size++] = (byte) (0x80 | (codePoint & 0x3F));
            } else {
                ensure(3);
                buffer[size++] = (byte) (0xE0 | (c >> 12));
                buffer[size++] = (byte) (0x80 | ((c >> 6) & 0x3F));
                buffer[size++] = (byte) (0x80 | (c & 0x3F));
            }
        }
    }

    /** The digest of everything written (for a sink made with {@link #into}). */
    byte[] digest() {
        if (digest == null) {
            throw new IllegalStateException("this sink keeps its bytes and has no digest");
        }
        digest.update(buffer, 0, size);
        size = 0;
        return digest.digest();
    }

    /** The bytes written (for a sink made with {@link #keeping}). */
    byte[] bytes() {
        if (digest != null) {
            throw new IllegalStateException("this sink feeds a digest and keeps no bytes");
        }
        return Arrays.copyOf(buffer, size);
    }
}
