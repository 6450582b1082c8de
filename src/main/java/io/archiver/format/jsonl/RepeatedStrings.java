package io.archiver.format.jsonl;

import java.util.Arrays;

import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * Strings decoded from UTF-8 bytes, each slot remembering its last one: the lines of an archive file repeat their
 * topic, timestamp type and header keys, so a slot mostly hands back the string it made before instead of decoding
 * the same bytes again.
 */
final class RepeatedStrings {

    private byte[][] bytes = new byte[8][];
    private String[] strings = new String[8];

    /** The string of {@code b[from, to)} (null for {@code from} -1), remembered in {@code slot}. */
    String of(byte[] b, int from, int to, int slot) {
        if (from < 0) {
            return null;
        }
        if (slot >= bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(slot + 1, bytes.length * 2));
            strings = Arrays.copyOf(strings, bytes.length);
        }
        byte[] last = bytes[slot];
        if (last != null && Arrays.equals(b, from, to, last, 0, last.length)) {
            return strings[slot];
        }
        bytes[slot] = Arrays.copyOfRange(b, from, to);
        return strings[slot] = new String(b, from, to - from, UTF_8);
    }
}
