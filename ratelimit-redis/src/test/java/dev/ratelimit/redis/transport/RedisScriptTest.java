package dev.ratelimit.redis.transport;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RedisScriptTest {

    @Test
    void theFunctionLibraryIsTheScriptWithItsLastLineRegisteringRunUnderANameOfItsSha() {
        RedisScript counts = RedisScript.COUNTS;
        String library = counts.functionLibrary();

        assertThat(counts.functionName()).isEqualTo("ratelimit_" + counts.sha().substring(0, 16)).hasSize(26);
        assertThat(library).startsWith("#!lua name=" + counts.functionName() + "\n")
                .endsWith("\nredis.register_function('" + counts.functionName() + "', run)\n")
                .doesNotContain(RedisScript.RUN);
        assertThat(counts.text().stripTrailing()).endsWith("\n" + RedisScript.RUN);
        String body = counts.text().substring(0, counts.text().stripTrailing().length() - RedisScript.RUN.length());
        assertThat(library).contains(body);
    }

    @Test
    void whatRedisAnswersWhenItLacksTheScriptOrFunctionOrHasTheLibrary() {
        assertThat(RedisScript.missing("NOSCRIPT No matching script. Please use EVAL.")).isTrue();
        assertThat(RedisScript.missing("ERR Function not found")).isTrue();
        assertThat(RedisScript.missing("ERR user_script:1: Script attempted to access nonexistent global variable")).isFalse();
        assertThat(RedisScript.missing(null)).isFalse();
        assertThat(RedisScript.libraryLoaded("ERR Library 'ratelimit_0123456789abcdef' already exists")).isTrue();
        assertThat(RedisScript.libraryLoaded("ERR unknown command 'FUNCTION', with args beginning with: 'LOAD'")).isFalse();
        assertThat(RedisScript.libraryLoaded(null)).isFalse();
    }
}
