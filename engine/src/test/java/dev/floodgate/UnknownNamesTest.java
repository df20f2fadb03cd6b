package dev.floodgate;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

@Timeout(30)
class UnknownNamesTest
{
    @Test
    void shouldNameAMisspelledVariableAndTheKeyItProbablyMeant()
    {
        final Properties properties = new Properties();
        properties.setProperty("floodgate.publish_rate_limt", "5");
        properties.setProperty("floodgate.something_else_entirely", "x");
        properties.setProperty("other.publish_rate_limt", "5");
        assertEquals(List.of(
                "environment variable FLOODGATE_AUTH_RATE_WINDOWMS is not a Floodgate configuration key and is " +
                    "ignored; did you mean FLOODGATE_AUTH_RATE_WINDOW_MS?",
                "environment variable FLOODGATE_PUBLISH_RATE_LIMT is not a Floodgate configuration key and is " +
                    "ignored; did you mean FLOODGATE_PUBLISH_RATE_LIMIT?",
                "environment variable FLOODGATE_publish_rate_limit is not a Floodgate configuration key and is " +
                    "ignored; did you mean FLOODGATE_PUBLISH_RATE_LIMIT?",
                "system property floodgate.publish_rate_limt is not a Floodgate configuration key and is " +
                    "ignored; did you mean floodgate.publish_rate_limit?",
                "system property floodgate.something_else_entirely is not a Floodgate configuration key and is " +
                    "ignored"),
            UnknownNames.warnings(Map.of(
                "FLOODGATE_PUBLISH_RATE_LIMT", "5",
                "FLOODGATE_AUTH_RATE_WINDOWMS", "5",
                "FLOODGATE_publish_rate_limit", "5",
                "PATH", "/bin"), properties));
    }

    @Test
    void shouldNotWarnAboutANameTheProjectReads()
    {
        final Properties properties = new Properties();
        properties.setProperty("floodgate.policy", "publish");
        properties.setProperty("floodgate.capacity", "42");
        properties.setProperty("floodgate.redis.port", "6379");
        properties.setProperty("floodgate.seed", "1");
        assertEquals(List.of(), UnknownNames.warnings(Map.of(
            "FLOODGATE_POLICY", "publish",
            "FLOODGATE_REBUILD", "1",
            "FLOODGATE_REDIS_ENSURE", "/bin/true",
            "FLOODGATE_FILE", "/tmp/x.map",
            "FLOODGATE_AUTH_CLUSTER_FALLBACK", "refuse",
            "FLOODGATE_CLUSTER_REDIS_URI", ""), properties));
    }

    @Test
    void shouldSuggestOnlyAKeyAtMostTwoEditsAway()
    {
        final String[] keys = FloodgateKeys.keys();
        assertEquals("capacity", KeySpelling.closest("CAPACTY", keys));
        assertEquals("file", KeySpelling.closest("files", keys));
        assertNull(KeySpelling.closest("capa", keys));
        assertEquals(3, KeySpelling.edits("kitten", "sitting"));
        assertEquals(0, KeySpelling.edits("", ""));
    }

    @Test
    void shouldLogOneWarningPerUnknownNameWhenReadingTheEnvironment()
    {
        final Logger logger = Logger.getLogger("dev.floodgate");
        final List<LogRecord> records = new ArrayList<>();
        final Handler handler = new Handler()
        {
            @Override
            public void publish(final LogRecord record)
            {
                synchronized (records)
                {
                    records.add(record);
                }
            }

            @Override
            public void flush()
            {
            }

            @Override
            public void close()
            {
            }
        };
        logger.addHandler(handler);
        try
        {
            final FloodgateConfig config = FloodgateConfig.fromSources(Map.of(
                "FLOODGATE_PUBLISH_RATE_LIMT", "5",
                "FLOODGATE_PUBLISH_RATE_LIMIT", "7"), new Properties());
            assertEquals(7, config.limit(Action.PUBLISH).limit());
        }
        finally
        {
            logger.removeHandler(handler);
        }
        synchronized (records)
        {
            final List<String> misspelt = records.stream().map(LogRecord::getMessage)
                .filter(message -> message.contains("FLOODGATE_PUBLISH_RATE_LIMT")).toList();
            assertEquals(List.of("environment variable FLOODGATE_PUBLISH_RATE_LIMT is not a Floodgate " +
                "configuration key and is ignored; did you mean FLOODGATE_PUBLISH_RATE_LIMIT?"), misspelt);
            assertEquals(Level.WARNING, records.stream()
                .filter(r -> r.getMessage().contains("FLOODGATE_PUBLISH_RATE_LIMT")).findFirst().orElseThrow()
                .getLevel());
        }
    }
}
