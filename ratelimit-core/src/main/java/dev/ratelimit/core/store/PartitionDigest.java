package dev.ratelimit.core.store;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * What the in-process store keeps a partition under: the partition itself when it is at most {@value #MAX_BYTES}
 * bytes in UTF-8, else a digest of it ({@value #PREFIX} and 18 bytes of an HMAC-SHA-256 keyed by a random key of
 * this store, base64url: 31 bytes). So a count's memory does not grow with the key a client sends, and as the key
 * is secret and made anew at each start, a client cannot make two partitions share a count. The same partition
 * text always maps to the same stored text in one store: decisions, give-backs and the admin API find the same
 * count (docs/stores.md, "Capacity").
 *
 * <p>A partition of at most 21 characters is kept as it is after one length check (21 characters are at most 63 bytes
 * in UTF-8): the common path does no other work and allocates nothing. Thread-safe: each thread digests with a
 * {@link Mac} of its own.
 */
final class PartitionDigest {

    /** The longest partition kept as it is, in bytes of UTF-8. */
    static final int MAX_BYTES = 64;
    /** Starts every digest kept in place of a partition. */
    static final String PREFIX = "digest:";
    /** A partition of this many characters or fewer is at most {@value #MAX_BYTES} bytes, whatever its characters. */
    private static final int SURELY_SHORT = MAX_BYTES / 3;
    private static final int DIGEST_BYTES = 18;
    private static final String ALGORITHM = "HmacSHA256";

    private final SecretKeySpec key;
    private final ThreadLocal<Mac> macs;

    PartitionDigest() {
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        this.key = new SecretKeySpec(secret, ALGORITHM);
        this.macs = new ThreadLocal<>() {
            @Override
            protected Mac initialValue() {
                return mac();
            }
        };
    }

    /** The text the store keeps {@code partition}'s counts under. */
    String stored(String partition) {
        return fits(partition) ? partition : digest(partition);
    }

    /** True when {@code partition} is at most {@value #MAX_BYTES} bytes in UTF-8. */
    static boolean fits(String partition) {
        int n = partition.length();
        if (n <= SURELY_SHORT) {
            return true;
        }
        if (n > MAX_BYTES) {
            return false;
        }
        int bytes = 0;
        for (int i = 0; i < n; i++) {
            char c = partition.charAt(i);
            // a surrogate is half of a 4-byte character
            bytes += c < 0x80 ? 1 : c < 0x800 || Character.isSurrogate(c) ? 2 : 3;
        }
        return bytes <= MAX_BYTES;
    }

    private String digest(String partition) {
        Mac mac = macs.get();
        byte[] full = mac.doFinal(partition.getBytes(StandardCharsets.UTF_8));
        byte[] kept = new byte[DIGEST_BYTES];
        System.arraycopy(full, 0, kept, 0, DIGEST_BYTES);
        return PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(kept);
    }

    private Mac mac() {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            return mac;
        } catch (GeneralSecurityException e) {
            // every Java platform has HmacSHA256
            throw new IllegalStateException("ratelimit: " + ALGORITHM + " is not available in this JVM", e);
        }
    }
}
