package dev.ratelimit.core.address;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * The client of one request as {@link ClientAddresses} found it: the peer and the client (before the prefix),
 * or neither when the runtime cannot tell. The partition text and the {@link InetAddress} values are made
 * when first asked for. Meant for one request; a race between two threads at worst makes a value twice
 * (each is immutable).
 */
public final class ResolvedClient {

    private final ClientAddresses addresses;
    private final boolean known;
    private final long peerHigh;
    private final long peerLow;
    private final long clientHigh;
    private final long clientLow;
    private String partition;
    private InetAddress client;
    private InetAddress peer;

    /** The runtime cannot tell the peer. */
    ResolvedClient(ClientAddresses addresses) {
        this(addresses, false, 0, 0, 0, 0);
    }

    ResolvedClient(ClientAddresses addresses, long peerHigh, long peerLow, long clientHigh, long clientLow) {
        this(addresses, true, peerHigh, peerLow, clientHigh, clientLow);
    }

    private ResolvedClient(ClientAddresses addresses, boolean known, long peerHigh, long peerLow, long clientHigh,
                           long clientLow) {
        this.addresses = addresses;
        this.known = known;
        this.peerHigh = peerHigh;
        this.peerLow = peerLow;
        this.clientHigh = clientHigh;
        this.clientLow = clientLow;
    }

    /** False when the runtime could not tell the peer (then everything is unknown). */
    public boolean known() {
        return known;
    }

    /**
     * {@code addr:<network>}: the client's address under the configured prefix in canonical text
     * ({@code addr:192.0.2.1}, {@code addr:2001:db8:1:2::/64}), or {@value ClientAddresses#UNKNOWN}.
     */
    public String partition() {
        String text = partition;
        if (text == null) {
            text = known ? addresses.partition(clientHigh, clientLow) : ClientAddresses.UNKNOWN;
            partition = text;
        }
        return text;
    }

    /** The client's address before the prefix; an IPv4-mapped address as IPv4. Null when unknown. */
    public InetAddress clientAddress() {
        if (!known) {
            return null;
        }
        InetAddress address = client;
        if (address == null) {
            address = inet(clientHigh, clientLow);
            client = address;
        }
        return address;
    }

    /** The connection's peer as the runtime reported it (zone id dropped). Null when unknown. */
    public InetAddress peerAddress() {
        if (!known) {
            return null;
        }
        InetAddress address = peer;
        if (address == null) {
            address = inet(peerHigh, peerLow);
            peer = address;
        }
        return address;
    }

    private static InetAddress inet(long high, long low) {
        byte[] bytes;
        if (AddressText.isIpv4(high, low)) {
            bytes = new byte[4];
            put(bytes, 0, low, 4);
        } else {
            bytes = new byte[16];
            put(bytes, 0, high, 8);
            put(bytes, 8, low, 8);
        }
        try {
            return InetAddress.getByAddress(bytes); // from bytes: never a name lookup
        } catch (UnknownHostException e) {
            throw new IllegalStateException("4 or 16 bytes are an address", e);
        }
    }

    private static void put(byte[] bytes, int at, long value, int length) {
        for (int i = 0; i < length; i++) {
            bytes[at + i] = (byte) (value >>> (8 * (length - 1 - i)));
        }
    }

    @Override
    public String toString() {
        return known ? "client " + AddressText.toString(clientHigh, clientLow) + " (peer "
                + AddressText.toString(peerHigh, peerLow) + ")" : "client unknown";
    }
}
