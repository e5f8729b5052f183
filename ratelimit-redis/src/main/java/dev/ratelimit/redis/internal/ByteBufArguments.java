package dev.ratelimit.redis.internal;

import dev.ratelimit.redis.transport.ArgumentSink;
import dev.ratelimit.redis.transport.CountKeys;
import dev.ratelimit.redis.transport.ScriptCall;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.nio.charset.StandardCharsets;

/**
 * Writes a script call as the Redis protocol (RESP) into a Netty buffer: each argument a bulk string
 * ({@code $<length>\r\n<bytes>\r\n}), integers as their digits and keys from their parts, with no text made first.
 * One per command written; not thread-safe.
 */
final class ByteBufArguments implements ArgumentSink {

    private static final byte[] CRLF = {'\r', '\n'};

    private final ByteBuf buf;

    private ByteBufArguments(ByteBuf buf) {
        this.buf = buf;
    }

    /** {@code *<n>} then the command, the script (its SHA-1 or its text), the number of keys, the keys, the arguments. */
    static void writeCall(ByteBuf buf, byte[] command, byte[] script, ScriptCall call) {
        int keys = call.keys();
        int arguments = call.arguments();
        buf.writeByte('*');
        decimal(buf, 3L + keys + arguments);
        buf.writeBytes(CRLF);
        ByteBufArguments sink = new ByteBufArguments(buf);
        sink.bytes(command);
        sink.bytes(script);
        sink.number(keys);
        for (int i = 0; i < keys; i++) {
            call.writeKey(i, sink);
        }
        for (int i = 0; i < arguments; i++) {
            call.writeArgument(i, sink);
        }
    }

    /** The call's first key as text (for a cluster's routing). */
    static String keyText(ScriptCall call) {
        String[] text = new String[1];
        call.writeKey(0, new ArgumentSink() {
            @Override
            public void bytes(byte[] value) {
                text[0] = new String(value, StandardCharsets.UTF_8);
            }

            @Override
            public void number(long value) {
                text[0] = Long.toString(value);
            }

            @Override
            public void key(byte[] prefix, String partition, byte[] suffix) {
                text[0] = new String(CountKeys.key(prefix, partition, suffix), StandardCharsets.UTF_8);
            }
        });
        return text[0];
    }

    @Override
    public void bytes(byte[] value) {
        buf.writeByte('$');
        decimal(buf, value.length);
        buf.writeBytes(CRLF);
        buf.writeBytes(value);
        buf.writeBytes(CRLF);
    }

    @Override
    public void number(long value) {
        buf.writeByte('$');
        decimal(buf, value < 0 ? CountKeys.digits(-value) + 1 : CountKeys.digits(value));
        buf.writeBytes(CRLF);
        decimal(buf, value);
        buf.writeBytes(CRLF);
    }

    @Override
    public void key(byte[] prefix, String partition, byte[] suffix) {
        int n = CountKeys.utf8Length(partition);
        if (n < 0) {
            bytes(CountKeys.key(prefix, partition, suffix));
            return;
        }
        buf.writeByte('$');
        decimal(buf, prefix.length + 3L + CountKeys.digits(n) + n + suffix.length);
        buf.writeBytes(CRLF);
        buf.writeBytes(prefix);
        buf.writeByte('{');
        decimal(buf, n);
        buf.writeByte(':');
        ByteBufUtil.writeUtf8(buf, partition);
        buf.writeByte('}');
        buf.writeBytes(suffix);
        buf.writeBytes(CRLF);
    }

    /** The digits of {@code value} (a minus sign first when negative). */
    private static void decimal(ByteBuf buf, long value) {
        if (value < 0) {
            buf.writeByte('-');
            if (value == Long.MIN_VALUE) {
                buf.writeBytes("9223372036854775808".getBytes(StandardCharsets.US_ASCII));
                return;
            }
            value = -value;
        }
        if (value < 10) {
            buf.writeByte('0' + (int) value);
            return;
        }
        int digits = CountKeys.digits(value);
        int at = buf.writerIndex() + digits;
        buf.ensureWritable(digits);
        for (int i = at - 1; i >= at - digits; i--) {
            buf.setByte(i, '0' + (int) (value % 10));
            value /= 10;
        }
        buf.writerIndex(at);
    }
}
