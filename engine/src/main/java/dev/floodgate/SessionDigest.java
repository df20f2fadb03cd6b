package dev.floodgate;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;
import java.util.Objects;

/** The identifier of a dashboard session token: see {@link Floodgate#sessionDigest}. Stateless. */
final class SessionDigest
{
    private SessionDigest()
    {
    }

    static String of(final CharSequence token)
    {
        Objects.requireNonNull(token, "token");
        if (token.length() == 0)
        {
            // every request without a token would share one quota, as an empty identifier would
            throw new IllegalArgumentException("token is empty: expected at least one character");
        }
        try
        {
            final byte[] digest = MessageDigest.getInstance("SHA-256")
                .digest(token.toString().getBytes(StandardCharsets.UTF_8));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(Arrays.copyOf(digest, 16));
        }
        catch (final NoSuchAlgorithmException ex)
        {
            throw new IllegalStateException("SHA-256 is missing from this JVM", ex);
        }
    }
}
