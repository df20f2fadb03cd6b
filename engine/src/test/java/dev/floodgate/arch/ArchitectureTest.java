package dev.floodgate.arch;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import org.agrona.DirectBuffer;

import java.util.HashSet;
import java.util.Set;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.members;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The engine's public surface is the API ({@code dev.floodgate}), the read-only reader
 * ({@code dev.floodgate.reader}) and the Micrometer binder ({@code dev.floodgate.metrics}); {@code store},
 * {@code door}, {@code janitor} and {@code cluster} are internal. These rules keep
 * an embedder from ever having to name an internal type, and the packages from knotting together.
 */
@AnalyzeClasses(packages = "dev.floodgate", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest
{
    static final String[] INTERNAL = {"dev.floodgate.store..", "dev.floodgate.door..", "dev.floodgate.janitor..",
        "dev.floodgate.cluster.."};
    /** Lettuce and what it brings: optional, so only named where a cluster quota is configured. */
    static final String[] LETTUCE = {"io.lettuce..", "io.netty..", "reactor.."};
    /** The only classes that name Lettuce types: the rest of the cluster package loads without Lettuce. */
    /** The client, and the watchdog whose Netty handler only the client's connector makes. */
    static final Set<String> LETTUCE_USERS = Set.of("LettuceClient", "RedisLeases", "RedisConnector", "RedisUris",
        "SilenceWatchdog");
    static final String[] PUBLIC = {"dev.floodgate", "dev.floodgate.reader", "dev.floodgate.metrics"};
    /**
     * The API's value types and exceptions: all the internal packages may know of the API. And the spelling check
     * of names ({@code KeySpelling}, which knows nothing of ours), as {@code Action.parse} suggests with it too.
     */
    static final Set<String> API_VALUES = Set.of("Action", "BlockedEntry", "Charge", "ClusterStats",
        "FloodgateFileException", "KeySpelling", "Probe",
        "Stats", "SystemTicker", "TableBusyException", "Ticker");
    /**
     * The configuration and the policy made from it: they validate with the doors' arithmetic (and the cluster
     * keys with the cluster's, {@code ClusterLimit.fits}).
     */
    static final Set<String> API_CONFIG = Set.of("ClusterKeys", "ClusterSettings", "ConfigBuilder", "ConfigKeys",
        "ConfigParser", "ConfigText", "ConfigValues", "DefaultFile", "FloodgateConfig", "FloodgateKeys",
        "FloodgatePolicy", "UnknownNames");

    @ArchTest
    static final ArchRule publicSignaturesNameNoInternalType = members()
        .that().areDeclaredInClassesThat().resideInAnyPackage(PUBLIC)
        .and().areDeclaredInClassesThat().arePublic()
        .and(visibleOutsideThePackage())
        .should(nameNoInternalType())
        .because("a caller must never have to name (or be able to reach) an internal type");

    @ArchTest
    static final ArchRule metricsUseThePublicApiOnly = noClasses()
        .that().resideInAPackage("dev.floodgate.metrics..")
        .should().dependOnClassesThat().resideInAnyPackage(INTERNAL)
        .because("the binder is what any embedder could write: it reads what the API exposes");

    @ArchTest
    static final ArchRule uncheckedExceptionsLiveInTheApi = classes()
        .that().resideInAnyPackage("dev.floodgate..").and().areAssignableTo(RuntimeException.class)
        .should().resideInAPackage("dev.floodgate")
        .because("an exception a caller must catch is part of the API");

    @ArchTest
    static final ArchRule internalsKnowOnlyTheApiValues = noClasses()
        .that().resideInAnyPackage(INTERNAL)
        .should().dependOnClassesThat(rootBut(API_VALUES))
        .because("the facade and the configuration depend on them: the API's value types are all they may know");

    @ArchTest
    static final ArchRule readerNeverDependsOnTheFacade = noClasses()
        .that().resideInAPackage("dev.floodgate.reader..")
        .should().dependOnClassesThat(rootBut(union(API_VALUES, API_CONFIG)))
        .because("the facade reads through the reader: the reader knows the API's values and policy only");

    @ArchTest
    static final ArchRule noPackageCycles = slices().assignedFrom(engineSlices()).should().beFreeOfCycles();

    @ArchTest
    static final ArchRule doorsKnowNoChronicleType = noClasses()
        .that().resideInAnyPackage("dev.floodgate.door..", "dev.floodgate.janitor..", "dev.floodgate")
        .should().dependOnClassesThat().resideInAPackage("net.openhft..")
        .because("Chronicle Map is the store's business: the doors, the janitor and the facade see entry memory");

    @ArchTest
    static final ArchRule onlyTheStoreTouchesEntryMemory = noClasses()
        .that().resideInAnyPackage("dev.floodgate.door..", "dev.floodgate.janitor..", "dev.floodgate")
        .should().callMethodWhere(ownedByAgronaBuffer())
        .because("store.Entry and its per-kind words (BucketWords, ShardWords, LeaseWords) own entry memory "
            + "(offsets, memory order, the generation re-check); the doors, the janitor and the facade go through "
            + "them");

    @ArchTest
    static final ArchRule onlyTheClusterClientNamesLettuce = noClasses()
        .that(DescribedPredicate.describe("are not " + LETTUCE_USERS + " of dev.floodgate.cluster", type ->
            !(type.getPackageName().equals("dev.floodgate.cluster") &&
                LETTUCE_USERS.contains(outermost(type).getSimpleName()))))
        .should().dependOnClassesThat().resideInAnyPackage(LETTUCE)
        .because("Lettuce is optional: a node without cluster_redis_uri must never load a class that needs it, and "
            + "the configuration validates with the cluster package's other classes");

    @ArchTest
    static final ArchRule noInternalPackageOutsideTheEngine = classes()
        .that().resideInAPackage("dev.floodgate.internal..")
        .should().notBePublic()
        .allowEmptyShould(true)
        .because("what tools need to launch JVMs is API (JvmFlags)");

    private static DescribedPredicate<JavaMethodCall> ownedByAgronaBuffer()
    {
        return DescribedPredicate.describe("the callee is a method of an Agrona buffer",
            call -> call.getTargetOwner().isAssignableTo(DirectBuffer.class));
    }

    private static DescribedPredicate<JavaMember> visibleOutsideThePackage()
    {
        return DescribedPredicate.describe("are public or protected", member ->
            member.getModifiers().contains(JavaModifier.PUBLIC) ||
                member.getModifiers().contains(JavaModifier.PROTECTED));
    }

    private static ArchCondition<JavaMember> nameNoInternalType()
    {
        return new ArchCondition<>("name no internal type")
        {
            @Override
            public void check(final JavaMember member, final ConditionEvents events)
            {
                final Set<JavaClass> named = new HashSet<>();
                if (member instanceof JavaCodeUnit code)
                {
                    named.addAll(code.getReturnType().getAllInvolvedRawTypes());
                    code.getParameterTypes().forEach(type -> named.addAll(type.getAllInvolvedRawTypes()));
                    code.getThrowsClause().getTypes().forEach(named::add);
                }
                else if (member instanceof JavaField field)
                {
                    named.addAll(field.getType().getAllInvolvedRawTypes());
                }
                for (final JavaClass type : named)
                {
                    if (isInternal(type))
                    {
                        events.add(SimpleConditionEvent.violated(member,
                            member.getFullName() + " names internal " + type.getName()));
                    }
                }
            }
        };
    }

    static boolean isInternal(final JavaClass type)
    {
        final String name = type.getPackageName();
        return name.startsWith("dev.floodgate.store") || name.startsWith("dev.floodgate.door") ||
            name.startsWith("dev.floodgate.janitor") || name.startsWith("dev.floodgate.cluster") ||
            name.startsWith("dev.floodgate.internal");
    }

    private static DescribedPredicate<JavaClass> rootBut(final Set<String> allowed)
    {
        return DescribedPredicate.describe("are in dev.floodgate but " + allowed,
            type -> type.getPackageName().equals("dev.floodgate") && !allowed.contains(outermost(type).getSimpleName()));
    }

    private static Set<String> union(final Set<String> a, final Set<String> b)
    {
        final Set<String> all = new HashSet<>(a);
        all.addAll(b);
        return all;
    }

    private static JavaClass outermost(final JavaClass type)
    {
        return type.getEnclosingClass().map(ArchitectureTest::outermost).orElse(type);
    }

    /** Each subpackage a slice; the root package split into the facade, the configuration and the value types. */
    private static SliceAssignment engineSlices()
    {
        return new SliceAssignment()
        {
            @Override
            public SliceIdentifier getIdentifierOf(final JavaClass type)
            {
                final String name = type.getPackageName();
                if (name.equals("dev.floodgate"))
                {
                    final String top = outermost(type).getSimpleName();
                    return SliceIdentifier.of(API_VALUES.contains(top) ? "api values" :
                        API_CONFIG.contains(top) ? "api config" : "facade");
                }
                if (name.startsWith("dev.floodgate.") && !name.startsWith("dev.floodgate.tools") &&
                    !name.startsWith("dev.floodgate.jmh"))
                {
                    return SliceIdentifier.of(name.substring("dev.floodgate.".length()).split("\\.")[0]);
                }
                return SliceIdentifier.ignore();
            }

            @Override
            public String getDescription()
            {
                return "engine packages, the root split into facade, configuration and values";
            }
        };
    }
}
