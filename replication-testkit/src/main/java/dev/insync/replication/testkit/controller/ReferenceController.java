package dev.insync.replication.testkit.controller;

import dev.insync.replication.core.config.TopicConfigs;
import dev.insync.replication.core.metadata.AlterPartitionRequest;
import dev.insync.replication.core.metadata.AlterPartitionResponse;
import dev.insync.replication.core.metadata.AlterPartitionResponse.PartitionResult;
import dev.insync.replication.core.metadata.BrokerRegistration;
import dev.insync.replication.core.metadata.ControllerChannel.HeartbeatResponse;
import dev.insync.replication.core.metadata.HeartbeatRequest;
import dev.insync.replication.core.metadata.MetadataDelta;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.time.Scheduler;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.testkit.network.ControllerRpc;
import dev.insync.replication.testkit.network.InMemoryNetwork;
import dev.insync.replication.testkit.sim.NodeId;
import dev.insync.replication.testkit.sim.NodeRuntime;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.stream.Collectors;

/**
 * A small in-process controller with Kafka's (KRaft) observable behaviour for one cluster, running
 * as the node {@link NodeId#CONTROLLER} of a {@link NodeRuntime}:
 * <ul>
 *   <li>broker registration with a new, strictly increasing broker epoch per incarnation (the
 *       offset of the metadata delta that records it, as in Kafka), heartbeats, fencing after
 *       {@code broker.session.timeout.ms} without one, unfencing on a heartbeat whose metadata offset
 *       has reached the broker's registration (LDR-4);</li>
 *   <li>controlled shutdown: leadership and ISR membership move away, then the heartbeat answers
 *       {@code shouldShutDown} (LDR-4, ISR-7);</li>
 *   <li>offline replicas (§9, Kafka's KIP-858): a heartbeat lists the broker's replicas whose log
 *       directory failed; the broker leaves the ISR and ELR of those partitions, leadership moves away
 *       (ISR-8), as fencing does but per partition, and the replica can neither lead nor rejoin the
 *       ISR ({@code INELIGIBLE_REPLICA}) until a new incarnation registers;</li>
 *   <li>AlterPartition validated in ISR-6's order; ELR and LastKnownElr maintenance (ISR-7,
 *       KIP-966); leader election (ISR-8); removal of a new incarnation from every ISR, and after an
 *       unclean restart from every ELR (LDR-5);</li>
 *   <li>topics with an explicit replica assignment and a per-topic {@code min.insync.replicas}
 *       changeable at run time.</li>
 * </ul>
 * Every change is one {@link MetadataDelta} with the next offset, pushed to every registered broker
 * over the {@link InMemoryNetwork}. Deltas can be lost or delayed there: a new incarnation gets the
 * whole log on registration, and a heartbeat whose metadata offset is behind the log as of the
 * broker's previous heartbeat gets the missing deltas again (brokers apply them in order with
 * {@link MetadataDeltaSequencer}).
 *
 * <p>All public methods are synchronized: the RPC handlers run on the controller node's executor,
 * the admin methods ({@link #createTopic}, {@link #setMinInsyncReplicas}, ...) may be called from
 * test code between simulation steps or from other threads in real-time mode.
 */
public final class ReferenceController {

    /** Name of the controller's executor (its timers run there). */
    public static final String EXECUTOR_NAME = "controller";

    private static final Logger log = LoggerFactory.getLogger(ReferenceController.class);

    private final NodeRuntime runtime;
    private final InMemoryNetwork network;
    private final ControllerConfig config;
    private Scheduler scheduler;
    private Executor executor;

    private final Map<Integer, BrokerInfo> brokers = new TreeMap<>();
    private final Map<String, TopicInfo> topics = new LinkedHashMap<>();
    private final Map<TopicPartition, PartitionRegistration> partitions = new LinkedHashMap<>();
    private final Map<TopicPartition, List<PartitionRegistration>> history = new HashMap<>();
    private final List<MetadataDelta> metadataLog = new ArrayList<>();

    /** A controller for the cluster on {@code network}; call {@link #start()} to serve requests. */
    public ReferenceController(NodeRuntime runtime, InMemoryNetwork network, ControllerConfig config) {
        this.runtime = Objects.requireNonNull(runtime, "runtime");
        this.network = Objects.requireNonNull(network, "network");
        this.config = Objects.requireNonNull(config, "config");
    }

    /** Binds the controller's RPC handlers on {@link NodeId#CONTROLLER} and its timers. Idempotent. */
    public synchronized void start() {
        if (scheduler != null) {
            return;
        }
        scheduler = runtime.forNode(NodeId.CONTROLLER);
        executor = scheduler.newSerialExecutor(EXECUTOR_NAME);
        network.bind(NodeId.CONTROLLER, ControllerRpc.ALTER_PARTITION,
                request -> CompletableFuture.completedFuture(alterPartition(request)));
        network.bind(NodeId.CONTROLLER, ControllerRpc.REGISTER_BROKER,
                request -> CompletableFuture.completedFuture(registerBroker(request.brokerId(), request.previousBrokerEpoch())));
        network.bind(NodeId.CONTROLLER, ControllerRpc.BROKER_HEARTBEAT,
                request -> CompletableFuture.completedFuture(heartbeat(request)));
    }

    /** The settings. */
    public ControllerConfig config() {
        return config;
    }

    // ================================================================ brokers (LDR-4, LDR-5)

    /**
     * Registers a new incarnation of {@code brokerId} (LDR-4). It starts fenced and gets a new broker
     * epoch. A broker registered before loses its ISR memberships (LDR-5); if
     * {@code previousBrokerEpoch} is -1 or not the epoch of its last incarnation (the restart was
     * unclean) it also leaves every ELR and cannot be elected from one.
     *
     * @return the new broker epoch
     */
    public synchronized long registerBroker(int brokerId, long previousBrokerEpoch) {
        requireStarted();
        if (brokerId < 0) {
            throw new IllegalArgumentException("Invalid broker id " + brokerId);
        }
        BrokerInfo previous = brokers.get(brokerId);
        long epoch = nextOffset();
        boolean unclean;
        if (previous != null && !previous.heartbeated && previous.previousEpochSent == previousBrokerEpoch) {
            // A retried registration of the same incarnation (the answer to the first was lost, so
            // it never heartbeated): the first attempt already judged clean or unclean.
            unclean = previous.uncleanRestart;
        } else {
            unclean = previous != null && (previousBrokerEpoch < 0 || previousBrokerEpoch != previous.epoch);
        }
        if (previous != null && previous.sessionTimer != null) {
            previous.sessionTimer.cancel();
        }
        BrokerInfo broker = new BrokerInfo(brokerId, epoch, now());
        broker.previousEpochSent = previousBrokerEpoch;
        broker.uncleanRestart = unclean;
        brokers.put(brokerId, broker);
        DeltaBuilder delta = new DeltaBuilder();
        delta.broker(broker.registration());
        if (previous != null) {
            log.info("Broker {} re-registered with epoch {} (previous {}, {} restart)", brokerId, epoch,
                    previous.epoch, unclean ? "unclean" : "clean");
            removeFromIsrs(brokerId, unclean, delta);
        } else {
            log.info("Broker {} registered with epoch {}", brokerId, epoch);
        }
        long offset = publish(delta, brokerId);
        assert offset == epoch : "registration offset " + offset + " != broker epoch " + epoch;
        // A new incarnation knows nothing: replay the whole log to it.
        resend(brokerId, -1);
        broker.resentUpToAtLastHeartbeat = latestOffset();
        armSessionTimer(broker);
        return epoch;
    }

    /**
     * A heartbeat (LDR-4). A stale epoch answers {@code STALE_BROKER_EPOCH}. Otherwise it renews
     * the session, re-sends metadata the broker is missing, takes the broker out of the ISR and ELR of
     * every partition whose replica it reports offline and elects another leader there (§9, ISR-8),
     * starts a controlled shutdown when asked (ISR-7), unfences a broker that has caught up with
     * metadata (its registration), and says {@code shouldShutDown} once no partition is led by a
     * broker in controlled shutdown.
     */
    public synchronized HeartbeatResponse heartbeat(HeartbeatRequest request) {
        requireStarted();
        BrokerInfo broker = brokers.get(request.brokerId());
        if (broker == null || broker.epoch != request.brokerEpoch()) {
            return new HeartbeatResponse(Errors.STALE_BROKER_EPOCH, true, false);
        }
        broker.lastHeartbeatMs = now();
        broker.heartbeated = true;
        if (request.metadataOffset() < broker.resentUpToAtLastHeartbeat) {
            // What was published before the previous heartbeat had a whole interval to arrive: lost.
            resend(broker.id, request.metadataOffset());
        }
        broker.resentUpToAtLastHeartbeat = latestOffset();
        DeltaBuilder delta = new DeltaBuilder();
        Set<TopicPartition> offline = Set.copyOf(request.offlineReplicas());
        if (!offline.equals(broker.offlineReplicas)) {
            Set<TopicPartition> newlyOffline = new HashSet<>(offline);
            newlyOffline.removeAll(broker.offlineReplicas);
            broker.offlineReplicas = offline;
            log.info("Broker {} (epoch {}) reports offline replicas {}", broker.id, broker.epoch, offline);
            removeOfflineReplicas(broker.id, newlyOffline, delta);
        }
        if (request.wantShutDown() && !broker.inControlledShutdown) {
            log.info("Broker {} (epoch {}) starts a controlled shutdown", broker.id, broker.epoch);
            broker.inControlledShutdown = true;
            delta.broker(broker.registration());
            removeFromIsrs(broker.id, false, delta);
        } else if (broker.fenced && !broker.inControlledShutdown && !request.wantShutDown()
                && request.metadataOffset() >= broker.epoch) {
            log.info("Broker {} (epoch {}) caught up with metadata at offset {}: unfenced", broker.id, broker.epoch,
                    request.metadataOffset());
            broker.fenced = false;
            delta.broker(broker.registration());
            electLeaderless(delta);
            armSessionTimer(broker);
        }
        publish(delta, -1);
        boolean shouldShutDown = broker.inControlledShutdown
                && partitions.values().stream().noneMatch(p -> p.leader() == broker.id);
        return new HeartbeatResponse(Errors.NONE, broker.fenced, shouldShutDown);
    }

    /** Fences {@code brokerId} now, as a session timeout would (ISR-7). No-op if fenced or unknown. */
    public synchronized void fence(int brokerId) {
        BrokerInfo broker = brokers.get(brokerId);
        if (broker == null || broker.fenced) {
            return;
        }
        log.info("Fencing broker {} (epoch {})", brokerId, broker.epoch);
        broker.fenced = true;
        DeltaBuilder delta = new DeltaBuilder();
        delta.broker(broker.registration());
        removeFromIsrs(brokerId, false, delta);
        publish(delta, -1);
    }

    private void armSessionTimer(BrokerInfo broker) {
        if (broker.sessionTimer != null) {
            broker.sessionTimer.cancel();
        }
        long dueMs = broker.lastHeartbeatMs + config.brokerSessionTimeoutMs();
        broker.sessionTimer = scheduler.schedule(executor, () -> checkSession(broker), Math.max(0, dueMs - now()));
    }

    private synchronized void checkSession(BrokerInfo broker) {
        broker.sessionTimer = null;
        if (brokers.get(broker.id) != broker || broker.fenced) {
            return;
        }
        if (now() - broker.lastHeartbeatMs >= config.brokerSessionTimeoutMs()) {
            log.info("Broker {} sent no heartbeat for {} ms", broker.id, now() - broker.lastHeartbeatMs);
            fence(broker.id);
        } else {
            armSessionTimer(broker);
        }
    }

    // ================================================================ topics

    /** Creates {@code topic} with the default settings; see {@link #createTopic(String, List, int, boolean)}. */
    public synchronized List<PartitionRegistration> createTopic(String topic, List<List<Integer>> assignment) {
        return createTopic(topic, assignment, config.defaultMinInsyncReplicas(), config.defaultUncleanLeaderElection());
    }

    /**
     * Creates {@code topic} with one partition per element of {@code assignment} (replicas in
     * assignment order, like {@code --replica-assignment 1:2:3}). The ISR is the assigned replicas
     * that are active, the leader the first of them; epochs start at 0.
     *
     * @throws IllegalArgumentException if the topic exists, an assignment is empty or repeats a
     *                                  broker, a broker is not registered, or no replica is active
     */
    public synchronized List<PartitionRegistration> createTopic(String topic, List<List<Integer>> assignment,
                                                                int minInsyncReplicas, boolean uncleanLeaderElection) {
        requireStarted();
        if (topics.containsKey(topic)) {
            throw new IllegalArgumentException("Topic " + topic + " already exists");
        }
        if (assignment.isEmpty() || minInsyncReplicas < 1) {
            throw new IllegalArgumentException("Topic " + topic + " needs at least one partition and min.insync.replicas >= 1, got "
                    + assignment.size() + " partitions and " + minInsyncReplicas);
        }
        List<PartitionRegistration> created = new ArrayList<>();
        for (int p = 0; p < assignment.size(); p++) {
            TopicPartition tp = new TopicPartition(topic, p);
            List<Integer> replicas = List.copyOf(assignment.get(p));
            if (replicas.isEmpty() || new HashSet<>(replicas).size() != replicas.size()) {
                throw new IllegalArgumentException("Invalid replica assignment " + replicas + " for " + tp);
            }
            for (int replica : replicas) {
                if (!brokers.containsKey(replica)) {
                    throw new IllegalArgumentException("Broker " + replica + " of the assignment of " + tp + " is not registered");
                }
            }
            List<Integer> isr = replicas.stream().filter(this::isActive).toList();
            if (isr.isEmpty()) {
                throw new IllegalArgumentException("No replica of " + tp + " (" + replicas + ") is active");
            }
            created.add(PartitionRegistration.builder(tp).replicas(replicas).isr(isr).leader(isr.get(0)).build());
        }
        topics.put(topic, new TopicInfo(minInsyncReplicas, uncleanLeaderElection));
        DeltaBuilder delta = new DeltaBuilder();
        delta.minIsr(topic, minInsyncReplicas);
        created.forEach(registration -> record(registration, delta));
        publish(delta, -1);
        log.info("Created topic {} with {} partitions, min.insync.replicas={}", topic, created.size(), minInsyncReplicas);
        return List.copyOf(created);
    }

    /**
     * Changes {@code min.insync.replicas} of {@code topic} at run time; published to every broker.
     * The ELR of its partitions is re-evaluated (cleared where the ISR now reaches the minimum).
     */
    public synchronized void setMinInsyncReplicas(String topic, int minInsyncReplicas) {
        TopicInfo info = topic(topic);
        if (minInsyncReplicas < 1) {
            throw new IllegalArgumentException("min.insync.replicas of " + topic + " must be at least 1, got " + minInsyncReplicas);
        }
        info.minInsyncReplicas = minInsyncReplicas;
        DeltaBuilder delta = new DeltaBuilder();
        delta.minIsr(topic, minInsyncReplicas);
        for (PartitionRegistration current : partitionsOf(topic)) {
            change(current, current.isr(), Set.of(), current.recovering(), delta);
        }
        publish(delta, -1);
    }

    /** Changes {@code unclean.leader.election.enable} of {@code topic}; enabling it elects where possible. */
    public synchronized void setUncleanLeaderElection(String topic, boolean enable) {
        topic(topic).uncleanLeaderElection = enable;
        DeltaBuilder delta = new DeltaBuilder();
        electLeaderless(delta);
        publish(delta, -1);
    }

    // ================================================================ AlterPartition (ISR-6)

    /**
     * Validates and commits ISR changes in exactly ISR-6's order: a stale sender broker epoch
     * fails the whole request ({@code STALE_BROKER_EPOCH}); then per partition
     * {@code UNKNOWN_TOPIC_OR_PARTITION}, {@code NOT_CONTROLLER} (leader or partition epoch above
     * ours), {@code FENCED_LEADER_EPOCH}, {@code INVALID_REQUEST} (sender not the leader),
     * {@code INVALID_UPDATE_VERSION}, {@code INVALID_REQUEST} (not a subset of the replicas, without
     * the leader, duplicates, or larger than one while RECOVERING), {@code INELIGIBLE_REPLICA}.
     * A valid change bumps the partition epoch only; an unchanged ISR writes and bumps nothing.
     */
    public synchronized AlterPartitionResponse alterPartition(AlterPartitionRequest request) {
        requireStarted();
        BrokerInfo sender = brokers.get(request.brokerId());
        if (sender == null || sender.epoch != request.brokerEpoch()) {
            return new AlterPartitionResponse(Errors.STALE_BROKER_EPOCH, Map.of());
        }
        DeltaBuilder delta = new DeltaBuilder();
        Map<TopicPartition, PartitionResult> results = new LinkedHashMap<>();
        for (AlterPartitionRequest.Item item : request.items()) {
            results.put(item.topicPartition(), alterOne(request.brokerId(), item, delta));
        }
        publish(delta, -1);
        return new AlterPartitionResponse(Errors.NONE, results);
    }

    private PartitionResult alterOne(int senderId, AlterPartitionRequest.Item item, DeltaBuilder delta) {
        PartitionRegistration current = partitions.get(item.topicPartition());
        if (current == null) {
            return PartitionResult.failed(Errors.UNKNOWN_TOPIC_OR_PARTITION);
        }
        if (item.leaderEpoch() > current.leaderEpoch() || item.partitionEpoch() > current.partitionEpoch()) {
            return PartitionResult.failed(Errors.NOT_CONTROLLER);
        }
        if (item.leaderEpoch() < current.leaderEpoch()) {
            return PartitionResult.failed(Errors.FENCED_LEADER_EPOCH);
        }
        if (senderId != current.leader()) {
            return PartitionResult.failed(Errors.INVALID_REQUEST);
        }
        if (item.partitionEpoch() < current.partitionEpoch()) {
            return PartitionResult.failed(Errors.INVALID_UPDATE_VERSION);
        }
        List<Integer> newIsr = item.newIsrIds();
        if (new HashSet<>(newIsr).size() != newIsr.size() || !current.replicas().containsAll(newIsr)
                || !newIsr.contains(current.leader())) {
            return PartitionResult.failed(Errors.INVALID_REQUEST);
        }
        // ISR-8: while RECOVERING after an unclean election, no ISR larger than the leader alone.
        if (current.recovering() && !item.recovered() && newIsr.size() > 1) {
            return PartitionResult.failed(Errors.INVALID_REQUEST);
        }
        for (AlterPartitionRequest.BrokerState member : item.newIsr()) {
            BrokerInfo broker = brokers.get(member.brokerId());
            if (broker == null || broker.fenced || broker.inControlledShutdown
                    || broker.offlineReplicas.contains(item.topicPartition())
                    || (member.brokerEpoch() != -1 && member.brokerEpoch() != broker.epoch)) {
                return PartitionResult.failed(Errors.INELIGIBLE_REPLICA);
            }
        }
        boolean recovering = current.recovering() && !item.recovered();
        PartitionRegistration next = sameMembers(newIsr, current.isr()) && recovering == current.recovering()
                ? current
                : change(current, newIsr, Set.of(), recovering, delta);
        return new PartitionResult(Errors.NONE, next.leader(), next.leaderEpoch(), next.isr(), next.partitionEpoch());
    }

    // ================================================================ ISR, ELR, election (ISR-7, ISR-8)

    /** ISR-7/LDR-5: removes {@code brokerId} from every ISR (and ELR if {@code fromElr}) and moves its leadership. */
    private void removeFromIsrs(int brokerId, boolean fromElr, DeltaBuilder delta) {
        for (PartitionRegistration current : List.copyOf(partitions.values())) {
            boolean affected = current.isr().contains(brokerId) || current.leader() == brokerId
                    || (fromElr && current.elr().contains(brokerId));
            if (!affected) {
                continue;
            }
            List<Integer> isr = current.isr().stream().filter(r -> r != brokerId).toList();
            change(current, isr, fromElr ? Set.of(brokerId) : Set.of(), current.recovering(), delta);
        }
    }

    /**
     * §9, ISR-8: {@code brokerId}'s replicas of {@code tps} are offline: it leaves their ISR and ELR,
     * and a leader it was is replaced (it is not electable there, see {@link #canLead}).
     */
    private void removeOfflineReplicas(int brokerId, Set<TopicPartition> tps, DeltaBuilder delta) {
        for (PartitionRegistration current : List.copyOf(partitions.values())) {
            if (!tps.contains(current.topicPartition())) {
                continue;
            }
            boolean affected = current.isr().contains(brokerId) || current.elr().contains(brokerId)
                    || current.leader() == brokerId;
            if (affected) {
                List<Integer> isr = current.isr().stream().filter(r -> r != brokerId).toList();
                change(current, isr, Set.of(brokerId), current.recovering(), delta);
            }
        }
    }

    /** ISR-8: elects a leader wherever there is none and a candidate exists. */
    private void electLeaderless(DeltaBuilder delta) {
        for (PartitionRegistration current : List.copyOf(partitions.values())) {
            if (current.leader() == PartitionRegistration.NO_LEADER) {
                change(current, current.isr(), Set.of(), current.recovering(), delta);
            }
        }
    }

    /**
     * The one place a partition changes: applies the target ISR, elects a leader if the current one
     * is no longer valid (ISR-8), maintains ELR and LastKnownElr (ISR-7), and bumps the leader epoch
     * on a leader change and the partition epoch on any change. {@code uncleanlyRestarted} are
     * replicas that leave the ELR and cannot be elected from it: brokers that restarted uncleanly
     * (LDR-5) or whose replica here is offline (§9). Returns the (possibly unchanged) registration.
     */
    private PartitionRegistration change(PartitionRegistration current, List<Integer> targetIsr,
                                         Set<Integer> uncleanlyRestarted, boolean recovering, DeltaBuilder delta) {
        TopicPartition tp = current.topicPartition();
        TopicInfo topic = topics.get(tp.topic());
        List<Integer> replicas = current.replicas();
        // The ISR is a set; it is kept in assignment order so describe prints it as Kafka's tools do (1,2,3).
        List<Integer> isr = inAssignmentOrder(replicas, Set.copyOf(targetIsr));
        int leader = current.leader();
        boolean uncleanElection = false;
        if (!(leader != PartitionRegistration.NO_LEADER && isr.contains(leader) && canLead(leader, tp))) {
            Optional<Integer> fromIsr = firstActive(tp, replicas, isr);
            List<Integer> electableElr = current.elr().stream()
                    .filter(r -> !uncleanlyRestarted.contains(r) && !targetIsr.contains(r)).toList();
            Optional<Integer> fromElr = isr.isEmpty() ? firstActive(tp, replicas, electableElr) : Optional.empty();
            Optional<Integer> unclean = topic.uncleanLeaderElection ? firstActive(tp, replicas, replicas)
                    : Optional.empty();
            if (fromIsr.isPresent()) {
                leader = fromIsr.get();
            } else if (fromElr.isPresent()) {
                leader = fromElr.get();
                isr = List.of(leader);
            } else if (unclean.isPresent()) {
                leader = unclean.get();
                isr = List.of(leader);
                uncleanElection = true;
                recovering = true;
                log.warn("Unclean leader election of broker {} for {}", leader, tp);
            } else {
                leader = PartitionRegistration.NO_LEADER;
            }
        }
        List<Integer> elr;
        List<Integer> lastKnownElr;
        int effectiveMinIsr = TopicConfigs.effectiveMinIsr(topic.minInsyncReplicas, replicas.size());
        if (uncleanElection || isr.size() >= effectiveMinIsr) {
            elr = List.of();
            lastKnownElr = List.of();
        } else {
            Set<Integer> isrSet = Set.copyOf(isr);
            Set<Integer> candidates = new LinkedHashSet<>(current.elr());
            candidates.addAll(current.isr());
            elr = inAssignmentOrder(replicas, candidates.stream()
                    .filter(r -> !isrSet.contains(r) && !uncleanlyRestarted.contains(r)).collect(Collectors.toSet()));
            // Replicas that were candidates but are neither in the ISR nor the ELR any more are remembered.
            candidates.addAll(current.lastKnownElr());
            Set<Integer> elrSet = Set.copyOf(elr);
            lastKnownElr = inAssignmentOrder(replicas, candidates.stream()
                    .filter(r -> !isrSet.contains(r) && !elrSet.contains(r)).collect(Collectors.toSet()));
        }
        int leaderEpoch = leader != current.leader() ? current.leaderEpoch() + 1 : current.leaderEpoch();
        boolean changed = leader != current.leader() || !isr.equals(current.isr()) || !elr.equals(current.elr())
                || !lastKnownElr.equals(current.lastKnownElr()) || recovering != current.recovering();
        if (!changed) {
            return current;
        }
        PartitionRegistration next = new PartitionRegistration(tp, replicas, isr, elr, lastKnownElr, leader,
                leaderEpoch, current.partitionEpoch() + 1, recovering);
        log.info("{}: leader {} epoch {}, ISR {}, ELR {}, LastKnownElr {}, partition epoch {}", tp, leaderName(leader),
                leaderEpoch, isr, elr, lastKnownElr, next.partitionEpoch());
        record(next, delta);
        return next;
    }

    private Optional<Integer> firstActive(TopicPartition tp, List<Integer> replicas, List<Integer> among) {
        return replicas.stream().filter(among::contains).filter(r -> canLead(r, tp)).findFirst();
    }

    /** ISR-8: active (ISR-3's registered, unfenced, not shutting down) and its replica of {@code tp} not offline (§9). */
    private boolean canLead(int brokerId, TopicPartition tp) {
        return isActive(brokerId) && !brokers.get(brokerId).offlineReplicas.contains(tp);
    }

    private static List<Integer> inAssignmentOrder(List<Integer> replicas, Set<Integer> members) {
        return replicas.stream().filter(members::contains).toList();
    }

    private static boolean sameMembers(List<Integer> a, List<Integer> b) {
        return a.size() == b.size() && Set.copyOf(a).equals(Set.copyOf(b));
    }

    private boolean isActive(int brokerId) {
        BrokerInfo broker = brokers.get(brokerId);
        return broker != null && !broker.fenced && !broker.inControlledShutdown;
    }

    private void record(PartitionRegistration registration, DeltaBuilder delta) {
        partitions.put(registration.topicPartition(), registration);
        history.computeIfAbsent(registration.topicPartition(), tp -> new ArrayList<>()).add(registration);
        delta.partition(registration);
    }

    // ================================================================ publishing

    private long nextOffset() {
        return latestOffset() + 1;
    }

    /** Publishes {@code delta} (if not empty) to every registered broker; returns its offset or -1. */
    private long publish(DeltaBuilder delta, int excludedBroker) {
        if (delta.isEmpty()) {
            return -1;
        }
        if (metadataLog.size() >= config.maxMetadataDeltas()) {
            throw new IllegalStateException("Controller metadata log is full: " + metadataLog.size()
                    + " deltas (maxMetadataDeltas); raise it for longer simulations");
        }
        MetadataDelta published = delta.build(nextOffset());
        metadataLog.add(published);
        for (int brokerId : brokers.keySet()) {
            if (brokerId != excludedBroker) {
                sendDelta(brokerId, published);
            }
        }
        return published.offset();
    }

    private void resend(int brokerId, long afterOffset) {
        for (int i = (int) Math.max(0, afterOffset + 1); i < metadataLog.size(); i++) {
            sendDelta(brokerId, metadataLog.get(i));
        }
    }

    private void sendDelta(int brokerId, MetadataDelta delta) {
        network.send(NodeId.CONTROLLER, NodeId.broker(brokerId), ControllerRpc.METADATA_UPDATE, delta);
    }

    private long now() {
        return runtime.time().milliseconds();
    }

    private void requireStarted() {
        if (scheduler == null) {
            throw new IllegalStateException("The controller is not started");
        }
    }

    private TopicInfo topic(String topic) {
        TopicInfo info = topics.get(topic);
        if (info == null) {
            throw new IllegalArgumentException("Unknown topic " + topic);
        }
        return info;
    }

    private List<PartitionRegistration> partitionsOf(String topic) {
        return partitions.values().stream().filter(p -> p.topicPartition().topic().equals(topic)).toList();
    }

    // ================================================================ views

    /** The current registration of {@code tp}, if the partition exists. */
    public synchronized Optional<PartitionRegistration> partition(TopicPartition tp) {
        return Optional.ofNullable(partitions.get(tp));
    }

    /** Every registration {@code tp} has had, oldest first (creation included). */
    public synchronized List<PartitionRegistration> history(TopicPartition tp) {
        return List.copyOf(history.getOrDefault(tp, List.of()));
    }

    /** The partition epochs {@code tp} went through, e.g. {@code [0, 1, 2]} in SCN-1. */
    public synchronized List<Integer> partitionEpochs(TopicPartition tp) {
        return history(tp).stream().map(PartitionRegistration::partitionEpoch).toList();
    }

    /** The current registration of {@code brokerId}, if it ever registered. */
    public synchronized Optional<BrokerRegistration> broker(int brokerId) {
        return Optional.ofNullable(brokers.get(brokerId)).map(BrokerInfo::registration);
    }

    /** Current {@code min.insync.replicas} of {@code topic}. */
    public synchronized int minInsyncReplicas(String topic) {
        return topic(topic).minInsyncReplicas;
    }

    /** Offset of the last published metadata delta, -1 before the first. */
    public synchronized long latestOffset() {
        return metadataLog.isEmpty() ? -1 : metadataLog.get(metadataLog.size() - 1).offset();
    }

    /** Every published delta, in offset order. */
    public synchronized List<MetadataDelta> metadataLog() {
        return List.copyOf(metadataLog);
    }

    /**
     * One line per partition in {@code kafka-topics.sh --describe}'s shape, tab separated:
     * {@code Topic: rep\tPartition: 0\tLeader: 1\tReplicas: 1,2,3\tIsr: 1,2,3\tElr: \tLastKnownElr: }
     * ({@code Leader: none} without a leader), lines joined by {@code \n}.
     */
    public synchronized String describe(String topic) {
        topic(topic);
        return partitionsOf(topic).stream().map(ReferenceController::describeLine).collect(Collectors.joining("\n"));
    }

    /**
     * {@link #describe} with each run of whitespace collapsed to one space and trailing space
     * removed: the form the seed quotes, e.g.
     * {@code Topic: strict Partition: 0 Leader: 1 Replicas: 1,2,3 Isr: 1,2 Elr: 3 LastKnownElr:}.
     */
    public synchronized String describeCompact(String topic) {
        return describe(topic).lines().map(line -> line.replaceAll("\\s+", " ").strip())
                .collect(Collectors.joining("\n"));
    }

    /** The {@code --describe} line of one registration. */
    public static String describeLine(PartitionRegistration p) {
        return "Topic: " + p.topicPartition().topic()
                + "\tPartition: " + p.topicPartition().partition()
                + "\tLeader: " + leaderName(p.leader())
                + "\tReplicas: " + joined(p.replicas())
                + "\tIsr: " + joined(p.isr())
                + "\tElr: " + joined(p.elr())
                + "\tLastKnownElr: " + joined(p.lastKnownElr());
    }

    private static String leaderName(int leader) {
        return leader == PartitionRegistration.NO_LEADER ? "none" : Integer.toString(leader);
    }

    private static String joined(List<Integer> ids) {
        return ids.stream().map(String::valueOf).collect(Collectors.joining(","));
    }

    // ================================================================ state holders

    private static final class BrokerInfo {
        final int id;
        final long epoch;
        boolean fenced = true;
        boolean inControlledShutdown;
        long lastHeartbeatMs;
        long resentUpToAtLastHeartbeat = -1;
        long previousEpochSent = -1;
        boolean uncleanRestart;
        boolean heartbeated;
        /** Replicas this incarnation reported offline in its last heartbeat (§9). */
        Set<TopicPartition> offlineReplicas = Set.of();
        Scheduler.Cancellable sessionTimer;

        BrokerInfo(int id, long epoch, long nowMs) {
            this.id = id;
            this.epoch = epoch;
            this.lastHeartbeatMs = nowMs;
        }

        BrokerRegistration registration() {
            return new BrokerRegistration(id, epoch, fenced, inControlledShutdown);
        }
    }

    private static final class TopicInfo {
        int minInsyncReplicas;
        boolean uncleanLeaderElection;

        TopicInfo(int minInsyncReplicas, boolean uncleanLeaderElection) {
            this.minInsyncReplicas = minInsyncReplicas;
            this.uncleanLeaderElection = uncleanLeaderElection;
        }
    }

    /** Collects the changes of one controller operation into one delta. */
    private static final class DeltaBuilder {
        private final Map<Integer, BrokerRegistration> brokers = new LinkedHashMap<>();
        private final Map<TopicPartition, PartitionRegistration> partitions = new LinkedHashMap<>();
        private final Map<String, Integer> minIsr = new LinkedHashMap<>();

        void broker(BrokerRegistration registration) {
            brokers.put(registration.brokerId(), registration);
        }

        void partition(PartitionRegistration registration) {
            partitions.put(registration.topicPartition(), registration);
        }

        void minIsr(String topic, int value) {
            minIsr.put(topic, value);
        }

        boolean isEmpty() {
            return brokers.isEmpty() && partitions.isEmpty() && minIsr.isEmpty();
        }

        MetadataDelta build(long offset) {
            return new MetadataDelta(offset, List.copyOf(brokers.values()), List.copyOf(partitions.values()),
                    List.of(), minIsr);
        }
    }
}
