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

package dev.insync.replication.netty;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

/**
 * Event loops on epoll where the native transport loads ({@link Epoll#isAvailable()}), else NIO.
 * One choice per instance, so a group and its channel classes always match.
 */
public final class EventLoops {

    private final boolean epoll;

    private EventLoops(boolean epoll) {
        this.epoll = epoll;
    }

    /** Epoll if {@code epollEnabled} and available, else NIO. */
    public static EventLoops choose(boolean epollEnabled) {
        return new EventLoops(epollEnabled && Epoll.isAvailable());
    }

    /** Whether this uses the native epoll transport. */
    public boolean isEpoll() {
        return epoll;
    }

    /** A group of {@code threads} event loops whose threads are named {@code <name>-<n>} (daemon threads). */
    public EventLoopGroup newGroup(String name, int threads) {
        IoHandlerFactory factory = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        return new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory(name, true), factory);
    }

    public Class<? extends ServerSocketChannel> serverChannelClass() {
        return epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }

    public Class<? extends SocketChannel> channelClass() {
        return epoll ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    @Override
    public String toString() {
        return epoll ? "epoll" : "nio";
    }
}
