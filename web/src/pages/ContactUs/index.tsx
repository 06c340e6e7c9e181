export default function ContactUs() {
  return <main className="page">ContactUs</main>;
}
