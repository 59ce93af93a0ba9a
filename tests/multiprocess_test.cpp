// The centre and agents as separate processes talking over CAF remote messaging on loopback.
#include <boost/test/unit_test.hpp>

#include "tests/hub_process.hpp"

using unisched::testing::ActorHarness;
using unisched::testing::ChildProcess;
using unisched::testing::ScratchDirectory;

using unisched::testing::free_port;
using unisched::testing::Hub;
using unisched::testing::kBinary;
using unisched::testing::kProfiles;
using unisched::testing::number;

BOOST_AUTO_TEST_SUITE(multiprocess)

BOOST_AUTO_TEST_CASE(agents_register_push_and_a_killed_one_turns_unhealthy) {
  Hub hub;
  auto t4 = hub.agent("t4-vm-useast.yaml");
  auto h100 = hub.agent("h100-euwest.yaml");
  ActorHarness::wait_until(
      [&] {
        const auto a = hub.cluster("t4-useast");
        const auto b = hub.cluster("h100-euwest");
        return a && b && a->value("healthy", false) && b->value("healthy", false) &&
               number(*a, "version") >= 3 && number(*b, "nodes") > 0;
      },
      "both clusters registered, healthy and updating", std::chrono::seconds(20));
  BOOST_TEST(t4->stop(SIGKILL) == -SIGKILL);
  ActorHarness::wait_until([&] { return hub.has_health("t4-useast", false); },
                           "the killed agent's cluster unhealthy", std::chrono::seconds(20));
  BOOST_TEST(hub.has_health("h100-euwest", true));
  // A second agent for a live cluster is refused, with the reason.
  auto duplicate = hub.agent("h100-euwest.yaml");
  ActorHarness::wait_until([&] { return duplicate->output().find("refused") != std::string::npos; },
                           "the duplicate refused", std::chrono::seconds(10));
  BOOST_TEST(duplicate->stop() == 1);
  BOOST_TEST(duplicate->output().find("already registered") != std::string::npos,
             duplicate->output());
  BOOST_TEST(h100->stop() == 0);  // SIGTERM: a clean stop
  BOOST_TEST(hub.process->stop() == 0);
}

BOOST_AUTO_TEST_CASE(an_agent_reconnects_to_a_restarted_hub) {
  const uint16_t port = free_port();
  Hub hub(port);
  auto t4 = hub.agent("t4-vm-useast.yaml");
  ActorHarness::wait_until([&] { return hub.has_health("t4-useast", true); }, "registered",
                           std::chrono::seconds(20));
  BOOST_TEST(hub.process->stop(SIGKILL) == -SIGKILL);  // the hub dies, with all it knew
  hub.start(port);
  ActorHarness::wait_until([&] { return hub.has_health("t4-useast", true); },
                           "the agent back at the new hub", std::chrono::seconds(30));
  const auto cluster = *hub.cluster("t4-useast");
  BOOST_TEST(number(cluster, "resyncs") >= 1);  // the new hub rebuilt it in full
  BOOST_TEST(number(cluster, "nodes") > 0);
  BOOST_TEST(t4->output().find("reconnected") != std::string::npos, t4->output());
  BOOST_TEST(t4->stop() == 0);
}

BOOST_AUTO_TEST_CASE(mutual_tls_admits_only_certificates_from_the_ca) {
  ScratchDirectory certs;
  const std::string dir = certs.path();
  unisched::testing::make_certificates(dir,
                                       {{"hub", "ca"}, {"agent", "ca"}, {"rogue", "other-ca"}});
  const auto tls = [&](const std::string& who) { return unisched::testing::tls_flags(dir, who); };
  const auto with = [](std::vector<std::string> args, const std::vector<std::string>& more) {
    args.insert(args.end(), more.begin(), more.end());
    return args;
  };
  const uint16_t port = free_port();
  const std::string hub = "127.0.0.1:" + std::to_string(port);
  ChildProcess server(with({kBinary, "serve", "--listen", hub}, tls("hub")), dir + "/hub.log");
  ActorHarness::wait_until(
      [&] { return server.output().find("listening on") != std::string::npos; },
      "the TLS hub listening", std::chrono::seconds(10));
  const std::vector<std::string> agent_args = {
      kBinary, "agent", "--hub", hub, "--profile", kProfiles + "t4-vm-useast.yaml"};
  ChildProcess good(with(agent_args, tls("agent")), dir + "/good.log");
  ActorHarness::wait_until(
      [&] { return good.output().find("registered with") != std::string::npos; },
      "the agent with a certificate from the CA registered", std::chrono::seconds(20));
  // Short-lived TLS clients come and go (each closes without a TLS goodbye); the agent's link
  // must survive them (caf_openssl 0.17 used to drop other connections then).
  std::string client = kBinary + " get clusters --hub " + hub;
  for (const std::string& arg : tls("agent")) {
    client += " " + arg;
  }
  for (int i = 0; i < 15; ++i) {
    BOOST_TEST(std::system((client + " >/dev/null 2>&1").c_str()) == 0);
  }
  BOOST_TEST(good.output().find("lost the hub") == std::string::npos, good.output());
  BOOST_TEST(server.output().find("-> lost") == std::string::npos, server.output());
  ChildProcess rogue(with(agent_args, tls("rogue")), dir + "/rogue.log");
  ChildProcess plain(agent_args, dir + "/plain.log");
  ActorHarness::wait_until(
      [&] {
        return rogue.output().find("cannot reach the hub") != std::string::npos &&
               plain.output().find("cannot reach the hub") != std::string::npos;
      },
      "the other CA's certificate and plain TCP refused", std::chrono::seconds(30));
  BOOST_TEST(rogue.stop() == 1);
  BOOST_TEST(plain.stop() == 1);
  BOOST_TEST(good.stop() == 0);
  BOOST_TEST(server.stop() == 0);
}

BOOST_AUTO_TEST_CASE(a_tls_hub_and_its_grpc_port_speak_tls_1_2_or_newer_whatever_openssl_allows) {
  ScratchDirectory certs;
  const std::string dir = certs.path();
  unisched::testing::make_certificates(dir, {{"hub", "ca"}, {"agent", "ca"}});
  // A machine whose OpenSSL configuration lets TLS 1.0 and 1.1 in, for the hub and the client.
  const std::string permissive = certs.write(
      "permissive.cnf",
      "openssl_conf = openssl_init\n[openssl_init]\nssl_conf = ssl_sect\n[ssl_sect]\n"
      "system_default = system_default_sect\n[system_default_sect]\nMinProtocol = TLSv1\n"
      "CipherString = DEFAULT@SECLEVEL=0\n");
  ::setenv("OPENSSL_CONF", permissive.c_str(), 1);
  std::vector<std::string> args = {kBinary,       "serve",  "--listen",
                                   "127.0.0.1:0", "--grpc", "127.0.0.1:0"};
  for (const std::string& flag : unisched::testing::tls_flags(dir, "hub")) {
    args.push_back(flag);
  }
  ChildProcess server(args, dir + "/hub.log");
  const std::string address = unisched::testing::wait_for_listening(server, "the TLS hub");
  const std::string grpc_address = unisched::testing::printed_grpc_address(server);
  const auto handshake = [&](const std::string& at, const std::string& version) {
    const std::string out = dir + "/s_client.out";
    std::system(("openssl s_client -connect " + at + " -" + version + " -alpn h2 -cert " + dir +
                 "/agent.pem -key " + dir + "/agent.key -CAfile " + dir + "/ca.pem </dev/null >" +
                 out + " 2>&1")
                    .c_str());
    return unisched::testing::read_file(out);
  };
  // CAF's port (held to the floor by the project's OpenSSL hooks: it answers with an alert),
  // then gRPC's (its own floor: it closes the connection).
  for (const std::string& at : {address, grpc_address}) {
    const std::string old = handshake(at, "tls1_1");
    const std::string current = handshake(at, "tls1_2");
    if (at == address) {
      BOOST_TEST(old.find("alert protocol version") != std::string::npos, old);
    }
    BOOST_TEST(old.find("New, (NONE), Cipher is (NONE)") != std::string::npos, at << ": " << old);
    BOOST_TEST(current.find("New, TLSv1.2, Cipher is") != std::string::npos, at << ": " << current);
  }
  ::unsetenv("OPENSSL_CONF");
  BOOST_TEST(server.stop() == 0);
}

BOOST_AUTO_TEST_CASE(cluster_tokens_decide_who_may_register_a_cluster) {
  ScratchDirectory dir;
  const std::string tokens = dir.write("tokens.txt", "t4-useast 0123456789abcdef0123\n");
  const uint16_t port = free_port();
  const std::string hub = "127.0.0.1:" + std::to_string(port);
  ChildProcess server({kBinary, "serve", "--listen", hub, "--cluster-tokens", tokens},
                      dir.path() + "/hub.log");
  ActorHarness::wait_until(
      [&] { return server.output().find("listening on") != std::string::npos; },
      "the hub listening", std::chrono::seconds(10));
  const auto agent = [&](const std::string& profile, const std::string& token,
                         const std::string& log) {
    std::vector<std::string> args = {kBinary, "agent",     "--hub",
                                     hub,     "--profile", kProfiles + profile};
    if (!token.empty()) {
      args.push_back("--token");
      args.push_back(token);
    }
    return std::make_unique<ChildProcess>(args, dir.path() + "/" + log);
  };
  auto wrong = agent("t4-vm-useast.yaml", "not-the-token-at-all", "wrong.log");
  auto missing = agent("h100-euwest.yaml", "", "missing.log");
  ActorHarness::wait_until(
      [&] {
        // CAF renders the reason with its quotes escaped; match around them.
        return wrong->output().find("wrong token for cluster") != std::string::npos &&
               missing->output().find("no token is configured for cluster") != std::string::npos;
      },
      "both refused with the reason", std::chrono::seconds(20));
  BOOST_TEST(wrong->stop() == 1);
  BOOST_TEST(missing->stop() == 1);
  auto right = agent("t4-vm-useast.yaml", "0123456789abcdef0123", "right.log");
  ActorHarness::wait_until(
      [&] { return right->output().find("registered with") != std::string::npos; },
      "the right token admitted", std::chrono::seconds(20));
  BOOST_TEST(server.output().find("registration refused: wrong token") != std::string::npos);
  BOOST_TEST(right->stop() == 0);
  BOOST_TEST(server.stop() == 0);
  const std::string bad = dir.write("bad.txt", "t4-useast short\n");
  ChildProcess refused({kBinary, "serve", "--listen", "127.0.0.1:0", "--cluster-tokens", bad},
                       dir.path() + "/bad.log");
  BOOST_TEST(refused.stop(0) == 1);  // it exits by itself
  BOOST_TEST(
      refused.output().find(bad + ":1: the token of t4-useast is shorter") != std::string::npos,
      refused.output());
}

// Every other verb's bad flags, unreachable hubs and unreadable files, and what each says:
// tests/cli_messages_test.cpp. This one takes seconds (libslurm tries its controller), so it
// is here.
BOOST_AUTO_TEST_CASE(a_slurm_agent_without_its_controller_is_a_clear_error) {
  ScratchDirectory scratch;
  const auto run = [&](const std::string& args) {
    const std::string out = scratch.path() + "/out";
    const int status = std::system((kBinary + " " + args + " >" + out + " 2>&1").c_str());
    return std::make_pair(WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                          unisched::testing::read_file(out));
  };
  const std::string no_controller_conf =
      scratch.write("slurm.conf",
                    "ClusterName=x\nSlurmctldHost=localhost\nSlurmctldPort=1\nAuthType=auth/none\n"
                    "CredType=cred/none\nNodeName=a CPUs=1\nPartitionName=p Nodes=ALL\n");
  const auto no_controller =
      run("agent --hub 127.0.0.1:1 --adapter slurm --slurm-conf " + no_controller_conf);
  BOOST_TEST(no_controller.first == 1);
  BOOST_TEST(no_controller.second.find("cannot reach slurmctld") != std::string::npos,
             no_controller.second);
  const auto bad_limit = run("agent --hub 127.0.0.1:1 --adapter slurm --slurm-conf " +
                             no_controller_conf + " --slurm-pending-limit soon");
  BOOST_TEST(bad_limit.first == 2, bad_limit.second);
}

BOOST_AUTO_TEST_SUITE_END()
