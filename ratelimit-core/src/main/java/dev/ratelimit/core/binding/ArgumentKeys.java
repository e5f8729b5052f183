package dev.ratelimit.core.binding;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.text.Normalizer;
import java.util.Locale;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The partitions of {@code per = ARGUMENT} limits: {@code arg:} and the first 16 bytes of an HMAC-SHA-256 of the
 * argument's normalised text, base64url without padding (22 characters), keyed by {@code ratelimit.key-secret} or a
 * random secret of this start. A username or a phone number is never kept in clear (store keys, logs, metrics, the
 * admin API), and cannot be found from its digest without the secret.
 *
 * <p>Normalised: the text NFKC-normalised (a full-width or compatibility character counts as the plain one), stripped
 * of leading and trailing white space ({@link String#strip}: a no-break space too), lower-cased ({@link Locale#ROOT}),
 * unless the key is exact; {@code null} is the empty text.
 *
 * <p>Thread-safe: one {@link Mac} per thread, keyed once, with the buffers a digest writes into (a digest is one
 * call, no lookup of an algorithm, and allocates the partition text and the value's bytes only; an ASCII key that is
 * not exact, the common case, is normalised straight into the thread's buffer, and allocates the partition text only).
 *
 * <p>The library's internals, public for its other packages: not an API.
 */
public final class ArgumentKeys {

    static final String PREFIX = "arg:";
    /** The bytes of the digest kept: 128 bits. */
    private static final int DIGEST_BYTES = 16;
    /** Base64url of 16 bytes, without padding: 22 characters. */
    private static final int ENCODED_LENGTH = 22;
    private static final String HMAC = "HmacSHA256";
    /** The base64url alphabet (RFC 4648, section 5), by 6-bit value. */
    private static final byte[] BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
            .getBytes(StandardCharsets.US_ASCII);

    private final SecretKeySpec secret;
    private final ThreadLocal<Digester> digesters;

    /** What one thread digests with: its keyed {@link Mac}, the MAC's bytes, and the partition's text being made. */
    private static final class Digester {
        final Mac mac;
        final byte[] mac32 = new byte[32];
        /** {@code arg:} and the characters of base64url of the bytes kept. */
        final byte[] text = new byte[PREFIX.length() + ENCODED_LENGTH];
        /** An ASCII key, normalised: grows to the longest key seen. */
        byte[] ascii = new byte[64];

        @SuppressWarnings("deprecation") // String.getBytes(int, int, byte[], int): the prefix is ASCII
        Digester(Mac mac) {
            this.mac = mac;
            PREFIX.getBytes(0, PREFIX.length(), text, 0);
        }
    }

    /** @param secret the secret's bytes, or null for a random secret of this start */
    ArgumentKeys(byte[] secret) {
        byte[] bytes = secret;
        if (bytes == null) {
            bytes = new byte[32];
            new SecureRandom().nextBytes(bytes);
        }
        this.secret = new SecretKeySpec(bytes, HMAC);
        this.digesters = ThreadLocal.withInitial(() -> new Digester(newMac()));
        newMac(); // fails now, not on the first call, where HMAC-SHA-256 is missing
    }

    /** Keyed by {@code ratelimit.key-secret} (its UTF-8 bytes), or by a random secret of this start when null. */
    public static ArgumentKeys of(String secret) {
        return new ArgumentKeys(secret == null ? null : secret.getBytes(StandardCharsets.UTF_8));
    }

    private Mac newMac() {
        try {
            Mac mac = Mac.getInstance(HMAC);
            mac.init(secret);
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("ratelimit: " + HMAC + " is not available in this JVM", e);
        }
    }

    /**
     * The partition of an argument: {@code arg:<digest>}.
     *
     * @param value the argument: text, a primitive's box, an enum or a UUID; null counts as the empty text
     * @param exact true to take its text as it is, without normalising it
     */
    public String partition(Object value, boolean exact) {
        String text = text(value);
        if (exact || !ascii(text)) {
            return digest(exact ? text : normalize(text));
        }
        // the common case, normalised as it is digested: no string of its own (the same bytes as normalize's UTF-8)
        Digester d = digesters.get();
        int from = 0;
        int to = text.length();
        while (from < to && Character.isWhitespace(text.charAt(from))) {
            from++;
        }
        while (to > from && Character.isWhitespace(text.charAt(to - 1))) {
            to--;
        }
        if (d.ascii.length < to - from) {
            d.ascii = new byte[to - from];
        }
        byte[] bytes = d.ascii;
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            bytes[i - from] = (byte) (c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c);
        }
        d.mac.update(bytes, 0, to - from);
        return finish(d);
    }

    /** {@code arg:} and the digest of {@code text} as it is. */
    String digest(String text) {
        Digester d = digesters.get();
        d.mac.update(text.getBytes(StandardCharsets.UTF_8));
        return finish(d);
    }

    /** {@code arg:} and the digest of what the thread's MAC was given. */
    private static String finish(Digester d) {
        byte[] mac = d.mac32;
        try {
            d.mac.doFinal(mac, 0);
        } catch (javax.crypto.ShortBufferException e) {
            throw new IllegalStateException("HMAC-SHA-256 is 32 bytes", e);
        }
        // base64url without padding of the first 16 bytes, written after the prefix: five groups of 3 bytes (4
        // characters each), then the 16th byte (2 characters)
        byte[] text = d.text;
        int at = PREFIX.length();
        for (int i = 0; i < 15; i += 3) {
            int bits = (mac[i] & 0xff) << 16 | (mac[i + 1] & 0xff) << 8 | mac[i + 2] & 0xff;
            text[at++] = BASE64URL[bits >>> 18];
            text[at++] = BASE64URL[bits >>> 12 & 0x3f];
            text[at++] = BASE64URL[bits >>> 6 & 0x3f];
            text[at++] = BASE64URL[bits & 0x3f];
        }
        int last = mac[DIGEST_BYTES - 1] & 0xff;
        text[at++] = BASE64URL[last >>> 2];
        text[at++] = BASE64URL[(last & 0x03) << 4];
        return new String(text, 0, at, StandardCharsets.ISO_8859_1);
    }

    /** The text of an argument: {@code null} the empty text, an enum its name, anything else its {@code toString}. */
    static String text(Object value) {
        if (value == null) {
            return "";
        }
        if (value instanceof String s) {
            return s;
        }
        return value instanceof Enum<?> e ? e.name() : value.toString();
    }

    /** NFKC, stripped, lower-cased ({@link Locale#ROOT}). */
    static String normalize(String text) {
        String normal = ascii(text) ? text : Normalizer.normalize(text, Normalizer.Form.NFKC);
        return normal.strip().toLowerCase(Locale.ROOT);
    }

    /** True when every character is ASCII: NFKC leaves such text as it is. */
    private static boolean ascii(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) >= 0x80) {
                return false;
            }
        }
        return true;
    }
}
