// The two threads of a large recurrent layer (kernels/rnn.cc): the forward runs its
// projection and then its time loop in two halves at once (run_two); the backward's work off
// the recurrence (dx and the weight gradients) runs on a second thread while the caller walks
// the steps (ChunkQueue). t_single marks a thread whose GEMMs run on one BLAS thread meanwhile.
#pragma once

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <future>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace mindlite {
namespace rnn_overlap {

inline thread_local bool t_single = false;  // this thread's GEMMs on one thread (overlapping)

// The backward's jobs off the recurrence (per chunk of steps: dx, the dW_ih and the dW_hh
// GEMM), each kind in the order pushed. While the caller walks the steps, a second thread runs
// them one after another (push never waits). finish() lets that thread end its current job,
// then the caller runs what is left of dW_ih and a thread what is left of dW_hh, the dx jobs
// shared out between them:
// the jobs outweigh the steps about 3:1 (an LSTM: three GEMMs a chunk against one dh GEMM a
// step), so a one-slot hand-off left the caller waiting at every chunk and every job
// on one thread. Each GEMM runs on one BLAS thread, and the jobs of one kind run in push order
// on one thread at a time, so every sum (dW's over the chunks included) is as on one thread.
class ChunkQueue {
 public:
  // finish() runs the kFirst jobs left on the caller, the kSecond ones on another thread
  // (each in push order), and spreads the kAny ones (independent, about as costly) between
  // the two so both end together
  enum Kind { kFirst = 0, kSecond = 1, kAny = 2 };

  explicit ChunkQueue(bool on) : on_(on), caller_was_single_(t_single) {
    if (on_) t_single = true;
  }
  ~ChunkQueue() {
    if (worker_.joinable()) stop_worker();
    t_single = caller_was_single_;
  }
  void push(Kind kind, std::function<void()> job) {
    if (!on_) return job();
    {
      std::lock_guard<std::mutex> lock(mu_);
      jobs_.emplace_back(kind, std::move(job));
    }
    if (!worker_.joinable()) {
      worker_ = std::thread([this] { work(); });
    } else {
      cv_.notify_one();
    }
  }
  void finish() {
    if (!on_) return;
    if (worker_.joinable()) stop_worker();
    if (error_) std::rethrow_exception(error_);  // a job's bad_alloc, as on the caller
    std::vector<std::function<void()>> first, second;
    std::vector<std::function<void()>> any;
    for (auto& kj : jobs_) {
      (kj.first == kFirst ? first : kj.first == kSecond ? second : any)
          .push_back(std::move(kj.second));
    }
    for (auto& job : any) (first.size() <= second.size() ? first : second).push_back(job);
    jobs_.clear();
    std::future<void> other;
    if (!second.empty()) {
      other = std::async(std::launch::async, [&second] {
        t_single = true;
        for (auto& job : second) job();
      });
    }
    try {
      for (auto& job : first) job();
    } catch (...) {
      if (other.valid()) other.wait();
      throw;
    }
    if (other.valid()) other.get();
  }

 private:
  void stop_worker() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_one();
    worker_.join();
  }
  void work() {
    t_single = true;
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      cv_.wait(lock, [this] { return stop_ || !jobs_.empty(); });
      if (stop_) return;
      std::function<void()> job = std::move(jobs_.front().second);
      jobs_.pop_front();
      lock.unlock();
      try {
        job();
      } catch (...) {
        lock.lock();
        error_ = std::current_exception();
        stop_ = true;
        return;
      }
      lock.lock();
    }
  }

  bool on_, caller_was_single_;
  bool stop_ = false;
  std::exception_ptr error_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::pair<Kind, std::function<void()>>> jobs_;
  std::thread worker_;
};

// fa() on the caller and fb() on a second thread at once when `threads`, else one after the
// other; both keep their GEMMs on one BLAS thread meanwhile. Their results never depend on it.
template <class A, class B>
void run_two(bool threads, A&& fa, B&& fb) {
  if (!threads || t_single) {
    fa();
    fb();
    return;
  }
  t_single = true;
  auto other = std::async(std::launch::async, [&fb] {
    t_single = true;
    fb();
  });
  try {
    fa();
  } catch (...) {
    other.wait();
    t_single = false;
    throw;
  }
  t_single = false;
  other.get();  // fb's exception (bad_alloc) goes on in the caller
}

}  // namespace rnn_overlap
}  // namespace mindlite
