package dev.floodgate;

/**
 * One (identifier, action) resolved once, e.g. per connection ({@link Floodgate#quota}): the same answers as
 * {@link Floodgate}'s methods of that name, without finding the identifier on every check. A handle keeps its
 * own reference to the entry and re-checks it before every write, so it stays correct across everything that
 * can happen to the entry meanwhile (the janitor reclaiming it, a reset, a policy change, the table filling
 * up): it resolves again when its entry changed, and never writes memory that is no longer the entry's. A warm
 * check allocates nothing.
 *
 * <p>Thread-safe. Valid while its {@code Floodgate} is open: after {@link Floodgate#close()} every method
 * throws {@link IllegalStateException}, the engine switched off or not.
 */
public interface Quota
{
    /** @return as {@link Floodgate#checkLimit(CharSequence, Action)}. */
    long checkLimit();

    /**
     * @param cost tokens, at least 1.
     * @return as {@link Floodgate#checkLimit(CharSequence, Action, long)}.
     */
    long checkLimit(long cost);

    /** @return as {@link Floodgate#checkLimitInCaller(CharSequence, Action)}. */
    long checkLimitInCaller();

    /**
     * @param cost tokens, at least 1.
     * @return as {@link Floodgate#checkLimitInCaller(CharSequence, Action, long)}.
     */
    long checkLimitInCaller(long cost);

    /** @return as {@link Floodgate#probe}. */
    Probe probe();

    /** @return as {@link Floodgate#probeInCaller}. */
    Probe probeInCaller();
}
