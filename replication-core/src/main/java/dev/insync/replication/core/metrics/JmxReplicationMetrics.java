/*
 * Copyright 2026 The Insync developers
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *     https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

package dev.insync.replication.core.metrics;

import dev.insync.replication.core.time.Time;
import dev.insync.replication.log.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import javax.management.StandardMBean;
import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * {@link ReplicationMetrics} published as MBeans on the platform MBean server under Kafka's names,
 * so existing dashboards find them:
 * <ul>
 *   <li>{@code kafka.server:type=ReplicaManager,name=UnderReplicatedPartitions} (gauge, attribute {@code Value})</li>
 *   <li>{@code kafka.server:type=ReplicaManager,name=UnderMinIsrPartitionCount} (gauge)</li>
 *   <li>{@code kafka.server:type=ReplicaManager,name=IsrShrinksPerSec} (meter: {@code Count},
 *       {@code MeanRate}, {@code OneMinuteRate}, {@code FiveMinuteRate}, {@code FifteenMinuteRate},
 *       {@code RateUnit}, {@code EventType})</li>
 *   <li>{@code kafka.server:type=ReplicaManager,name=IsrExpandsPerSec} (meter)</li>
 *   <li>{@code kafka.server:type=ReplicaManager,name=FailedIsrUpdatesPerSec} (meter)</li>
 *   <li>{@code kafka.server:type=ReplicaFetcherManager,name=MaxLag,clientId=Replica} (gauge)</li>
 * </ul>
 * Any other gauge name goes under {@code type=ReplicaManager}.
 *
 * <p><b>Several brokers in one JVM.</b> Kafka has one broker per JVM, so its names carry no broker
 * id. {@link #forBroker(int, Time)} appends the key property {@code brokerId=<id>} to every name
 * (e.g. {@code kafka.server:type=ReplicaManager,name=IsrShrinksPerSec,brokerId=1}) so that the
 * brokers of an in-process cluster do not collide; {@link #kafkaNames(Time)} uses Kafka's exact
 * names and therefore allows one instance per JVM at a time. {@link #close()} unregisters everything
 * this instance registered.
 */
public final class JmxReplicationMetrics implements ReplicationMetrics {

    private static final Logger log = LoggerFactory.getLogger(JmxReplicationMetrics.class);

    /** JMX view of a gauge: Kafka exposes its value as attribute {@code Value}. */
    public interface GaugeMBean {
        /** The current value. */
        long getValue();
    }

    /** JMX view of a meter, with the attributes Kafka's meters have. */
    public interface MeterMBean {
        /** Events since creation. */
        long getCount();

        /** Events per second since creation. */
        double getMeanRate();

        /** Events per second, 1-minute moving average. */
        double getOneMinuteRate();

        /** Events per second, 5-minute moving average. */
        double getFiveMinuteRate();

        /** Events per second, 15-minute moving average. */
        double getFifteenMinuteRate();

        /** Always {@code SECONDS}. */
        String getRateUnit();

        /** What is counted, e.g. {@code shrinks}. */
        String getEventType();
    }

    private final MBeanServer server;
    private final OptionalInt brokerId;
    private final RateMeter shrinks;
    private final RateMeter expands;
    private final RateMeter failedUpdates;
    private final Map<String, ObjectName> registered = new ConcurrentHashMap<>();
    private volatile boolean closed;

    private JmxReplicationMetrics(MBeanServer server, OptionalInt brokerId, Time time) {
        this.server = Objects.requireNonNull(server, "server");
        this.brokerId = brokerId;
        Objects.requireNonNull(time, "time");
        this.shrinks = new RateMeter(time);
        this.expands = new RateMeter(time);
        this.failedUpdates = new RateMeter(time);
        try {
            registerMeter(ISR_SHRINKS_PER_SEC, shrinks, "shrinks");
            registerMeter(ISR_EXPANDS_PER_SEC, expands, "expands");
            registerMeter(FAILED_ISR_UPDATES_PER_SEC, failedUpdates, "failedUpdates");
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** Metrics of broker {@code brokerId}, named with an extra {@code brokerId=<id>} key property. */
    public static JmxReplicationMetrics forBroker(int brokerId, Time time) {
        return new JmxReplicationMetrics(ManagementFactory.getPlatformMBeanServer(), OptionalInt.of(brokerId), time);
    }

    /** Metrics under Kafka's exact names (one instance per JVM at a time). */
    public static JmxReplicationMetrics kafkaNames(Time time) {
        return new JmxReplicationMetrics(ManagementFactory.getPlatformMBeanServer(), OptionalInt.empty(), time);
    }

    /**
     * The ObjectName this instance uses for metric {@code name}.
     *
     * @throws IllegalArgumentException if {@code name} cannot be part of an ObjectName
     */
    public ObjectName objectName(String name) {
        String base = MAX_LAG.equals(name)
                ? "kafka.server:type=ReplicaFetcherManager,name=MaxLag,clientId=Replica"
                : "kafka.server:type=ReplicaManager,name=" + name;
        String full = brokerId.isPresent() ? base + ",brokerId=" + brokerId.getAsInt() : base;
        try {
            return new ObjectName(full);
        } catch (MalformedObjectNameException e) {
            throw new IllegalArgumentException("Metric name '" + name + "' gives an invalid ObjectName " + full, e);
        }
    }

    @Override
    public void isrShrink(TopicPartition tp) {
        shrinks.mark();
    }

    @Override
    public void isrExpand(TopicPartition tp) {
        expands.mark();
    }

    @Override
    public void failedIsrUpdate(TopicPartition tp) {
        failedUpdates.mark();
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalStateException if another MBean already holds the name (e.g. a second
     *                               {@link #kafkaNames} instance), or this instance is closed
     */
    @Override
    public synchronized void registerGauge(String name, LongSupplier value) {
        Objects.requireNonNull(value, "value");
        GaugeMBean gauge = value::getAsLong;
        removeGauge(name);
        register(name, new StandardMBean(gauge, GaugeMBean.class, false));
    }

    @Override
    public synchronized void removeGauge(String name) {
        if (!isMeter(name)) {
            unregister(name);
        }
    }

    private static boolean isMeter(String name) {
        return ISR_SHRINKS_PER_SEC.equals(name) || ISR_EXPANDS_PER_SEC.equals(name)
                || FAILED_ISR_UPDATES_PER_SEC.equals(name);
    }

    private void registerMeter(String name, RateMeter meter, String eventType) {
        MeterMBean view = new MeterMBean() {
            @Override
            public long getCount() {
                return meter.count();
            }

            @Override
            public double getMeanRate() {
                return meter.meanRate();
            }

            @Override
            public double getOneMinuteRate() {
                return meter.rate(1);
            }

            @Override
            public double getFiveMinuteRate() {
                return meter.rate(5);
            }

            @Override
            public double getFifteenMinuteRate() {
                return meter.rate(15);
            }

            @Override
            public String getRateUnit() {
                return "SECONDS";
            }

            @Override
            public String getEventType() {
                return eventType;
            }
        };
        register(name, new StandardMBean(view, MeterMBean.class, false));
    }

    private void register(String name, StandardMBean mbean) {
        if (closed) {
            throw new IllegalStateException("Metrics " + this + " are closed; cannot register " + name);
        }
        ObjectName on = objectName(name);
        try {
            server.registerMBean(mbean, on);
        } catch (JMException e) {
            throw new IllegalStateException("Cannot register MBean " + on + ": " + e, e);
        }
        registered.put(name, on);
    }

    private void unregister(String name) {
        ObjectName on = registered.remove(name);
        if (on == null) {
            return;
        }
        try {
            server.unregisterMBean(on);
        } catch (InstanceNotFoundException e) {
            log.debug("MBean {} was already unregistered", on);
        } catch (JMException e) {
            log.warn("Cannot unregister MBean {}", on, e);
        }
    }

    /** Unregisters every MBean this instance registered. Idempotent. */
    @Override
    public synchronized void close() {
        closed = true;
        for (String name : Map.copyOf(registered).keySet()) {
            unregister(name);
        }
    }

    @Override
    public String toString() {
        return "JmxReplicationMetrics(" + (brokerId.isPresent() ? "brokerId=" + brokerId.getAsInt() : "kafka names") + ")";
    }
}
